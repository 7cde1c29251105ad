// Admission: whether a caller may call an operation (or a door that is not one: the event stream,
// the MCP endpoint's tool calls, a payment route), in one place. The credential kind, the
// organization's state (unverified, suspended), API keys only, and the scopes. Every door asks
// this, and renders its refusal in its own transport (a problem+json, a WebSocket close, MCP's
// step-up challenge); http/auth.ts only resolves the credential.
import type { FastifyRequest } from 'fastify';
import { hookList } from '../http/auth.ts';
import type { App } from '../http/types.ts';
import { ApiError } from '../lib/errors.ts';
import {
  isOperator,
  isPublic,
  ORGANIZATION_KINDS,
  principalKind,
  type AnyOperation,
  type Caller,
  type PrincipalKind,
} from './operation.ts';

/** What a caller must be: an operation's policy, or a door's (which may need several scopes at once). */
export interface Admission extends Partial<Pick<AnyOperation, 'allowUnverified' | 'apiKeyOnly' | 'principals'>> {
  /** The OAuth scope, or scopes, it needs (API keys carry every scope); null: none. */
  scope?: string | readonly string[] | null;
}

/**
 * Why a kind of caller is refused an operation it is not among the `principals` of: 403 forbidden,
 * or 401 unauthenticated for the anonymous caller (it has no credential to show).
 */
const REFUSED: Record<PrincipalKind, string> = {
  // The texts of http/auth.ts for an agent credential on an admin route.
  agent: 'The administrative surface is not available to agent credentials.',
  console: "The administrative surface is not available to an organization's console session.",
  operator: "This operation acts for an organization: it takes the organization's credential or console session.",
  public: 'This operation takes a credential: without one, only sign-up may be called.',
};

/** Why a caller with a credential is refused a public operation (only the anonymous caller calls one). */
const PUBLIC_ONLY = 'This operation is for a caller without a credential: call it anonymously.';

/**
 * Throws the refusal of `caller` under `policy`: forbidden (credential kind, API keys only),
 * organization_unverified, organization_suspended, or insufficient_scope naming the missing scopes
 * (in `extensions.scope` and the challenge, RFC 6750 §3.1).
 */
export function admit(policy: Admission, caller: Caller): void {
  const kind = principalKind(caller);
  const principals = policy.principals ?? ORGANIZATION_KINDS;
  if (!principals.includes(kind)) {
    if (kind === 'public') throw new ApiError('unauthenticated', REFUSED.public);
    throw new ApiError('forbidden', principals.includes('public') ? PUBLIC_ONLY : REFUSED[kind]);
  }
  if (isOperator(caller) || isPublic(caller)) return;
  const principal = caller;
  if (!policy.allowUnverified && principal.organizationStatus === 'unverified') {
    throw new ApiError(
      'organization_unverified',
      'Verify the organization first: POST /v1/agent/verify with the emailed code.',
    );
  }
  if (!policy.allowUnverified && principal.organizationStatus === 'suspended')
    throw new ApiError('organization_suspended', 'The organization is suspended.');
  if (policy.apiKeyOnly && principal.credentialType === 'oauth_token')
    throw new ApiError('forbidden', 'This route takes an API key, not an OAuth access token.');
  const needed = policy.scope ? (typeof policy.scope === 'string' ? [policy.scope] : policy.scope) : [];
  const missing = needed.filter((scope) => !principal.scopes.includes(scope)).join(' ');
  if (missing) {
    const plural = missing.includes(' ') ? 's' : '';
    throw new ApiError('insufficient_scope', `The access token lacks the ${missing} scope${plural}.`, {
      headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${missing}"` },
      extensions: { scope: missing },
    });
  }
}

/**
 * Admits each agent route's caller by its config (scope, allowUnverified, apiKeyOnly) in onRequest,
 * right after the credential check (registerAuth's, the route's first hook: register after it),
 * before the body is parsed. A route whose check was skipped (an MPP payment credential) has no agent.
 */
export function registerAdmission(app: App): void {
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (config.auth !== 'agent') return;
    const admission = async (request: FastifyRequest) => {
      if (request.agent) admit(config, request.agent);
    };
    const [check, ...rest] = hookList(route.onRequest);
    route.onRequest = [check!, admission, ...rest];
  });
}
