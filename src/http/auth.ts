// Credential checks per surface (contract §3): the principal of the presented credential, or 401
// with its challenge. Runs in onRequest, before the body is parsed, so an unauthenticated request
// never learns whether its body would have been valid. Whether the principal may call the route
// (organization state, scope) is admission (src/operations/admit.ts), the next hook.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../lib/errors.ts';
import type { App } from './types.ts';
import type { AdminPrincipal, AgentPrincipal, BearerResource, DevicePrincipal } from '../operations/principals.ts';

/**
 * Resolves a presented secret to its principal, or null when unknown, revoked or expired. An
 * OAuth access token resolves only at the resource it was issued for (its audience).
 */
export interface Authenticators {
  agent(token: string, resource?: BearerResource): Promise<AgentPrincipal | null>;
  admin(token: string): Promise<AdminPrincipal | null>;
  /** `markSeen: false`: the call does not count as the phone calling in (route config `presence: false`). */
  device(key: string, options?: { markSeen?: boolean }): Promise<DevicePrincipal | null>;
}

const AGENT_PREFIXES = ['cg_live_', 'cg_at_'];

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header);
  return match ? match[1] : null;
}

const unauthenticated = (detail: string, headers?: Record<string, string>) =>
  new ApiError('unauthenticated', detail, { headers });

/** Where a client learns how to get a token for a bearer route (RFC 9728), per resource. */
export type ResourceMetadataUrls = Record<BearerResource, string>;

/** The resource of a route: the MCP endpoint or the REST API. */
export const resourceOfUrl = (url: string): BearerResource =>
  url === '/mcp' || url.startsWith('/mcp/') ? 'mcp' : 'v1';

async function authenticateAgent(
  request: FastifyRequest,
  auth: Authenticators,
  resource: BearerResource,
  metadataUrl: string | undefined,
  scope: string | undefined,
): Promise<AgentPrincipal> {
  // RFC 9728 §5.1: a 401 on a bearer route says where the protected-resource metadata is, and
  // (RFC 6750 §3) which scope a token needs there.
  const scoped = scope ? `, scope="${scope}"` : '';
  const challenge = metadataUrl
    ? { 'WWW-Authenticate': `Bearer resource_metadata="${metadataUrl}"${scoped}` }
    : undefined;
  const token = bearerToken(request);
  if (token === null) {
    throw unauthenticated(
      request.headers.authorization
        ? 'The Authorization header must be "Bearer <api key>".'
        : 'Send your API key as "Authorization: Bearer <api key>".',
      challenge,
    );
  }
  if (!AGENT_PREFIXES.some((p) => token.startsWith(p)))
    throw unauthenticated('This route takes an API key or OAuth access token.', challenge);
  const principal = await auth.agent(token, resource);
  if (!principal) {
    const invalid = metadataUrl
      ? { 'WWW-Authenticate': `Bearer resource_metadata="${metadataUrl}"${scoped}, error="invalid_token"` }
      : undefined;
    throw unauthenticated(
      token.startsWith('cg_at_')
        ? 'The access token is unknown, revoked or expired, or was issued for another resource.'
        : 'The API key is unknown, revoked or expired.',
      invalid,
    );
  }
  return principal;
}

async function authenticateAdmin(request: FastifyRequest, auth: Authenticators): Promise<AdminPrincipal> {
  const token = bearerToken(request);
  if (token === null) throw unauthenticated('Send an admin token as "Authorization: Bearer cg_adm_...".');
  if (AGENT_PREFIXES.some((p) => token.startsWith(p))) {
    // A valid agent credential is known but not allowed here (403); an unknown one is simply 401.
    if (!(await auth.agent(token))) throw unauthenticated('The credential is unknown, revoked or expired.');
    throw new ApiError('forbidden', 'The administrative surface is not available to agent credentials.');
  }
  if (!token.startsWith('cg_adm_')) throw unauthenticated('This route takes an admin token.');
  const principal = await auth.admin(token);
  if (!principal) throw unauthenticated('The admin token is unknown or revoked.');
  return principal;
}

async function authenticateDevice(
  request: FastifyRequest,
  auth: Authenticators,
  markSeen: boolean,
): Promise<DevicePrincipal> {
  const key = request.headers['x-phone-key'];
  if (typeof key !== 'string' || key === '') throw unauthenticated('Send the device key in the X-Phone-Key header.');
  if (!key.startsWith('cg_dev_')) throw unauthenticated('X-Phone-Key takes a device key.');
  const principal = await auth.device(key, { markSeen });
  if (!principal) throw unauthenticated('The device key is unknown or was rotated.');
  return principal;
}

/** The SMSGate app's calls (/mobile/v1): its device token as a bearer token (contract §13). */
async function authenticateSmsgate(request: FastifyRequest, auth: Authenticators): Promise<DevicePrincipal> {
  const token = bearerToken(request);
  if (token === null) throw unauthenticated('Send the device token as "Authorization: Bearer <token>".');
  const principal = token.startsWith('cg_dev_') ? await auth.device(token) : null;
  if (!principal) throw unauthenticated('The device token is unknown or was rotated.');
  return principal;
}

export const hookList = <T>(hook: T | T[] | undefined): T[] =>
  hook === undefined ? [] : Array.isArray(hook) ? hook : [hook];

/**
 * Attaches the credential check of each route's surface as a route-level onRequest hook, decided
 * once at registration (no per-request lookup of the route config). Registered before any route.
 */
export function registerAuth(
  app: App,
  auth: Authenticators,
  options: { resourceMetadata?: ResourceMetadataUrls } = {},
): void {
  app.decorateRequest('agent', null);
  app.decorateRequest('admin', null);
  app.decorateRequest('device', null);

  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (!config.auth || config.auth === 'public') return;
    const resource = resourceOfUrl(route.url);
    const checks = {
      agent: async (request: FastifyRequest) => {
        const scope = config.scope ?? config.challengeScope;
        request.agent = await authenticateAgent(request, auth, resource, options.resourceMetadata?.[resource], scope);
      },
      admin: async (request: FastifyRequest) => {
        request.admin = await authenticateAdmin(request, auth);
      },
      device: async (request: FastifyRequest) => {
        request.device = await authenticateDevice(request, auth, config.presence !== false);
      },
      smsgate: async (request: FastifyRequest) => {
        request.device = await authenticateSmsgate(request, auth);
      },
    };
    route.onRequest = [checks[config.auth], ...hookList(route.onRequest)];
  });
}

/** The caller's principal on a route whose config says `auth: 'agent'`. */
export function agentOf(request: FastifyRequest): AgentPrincipal {
  if (!request.agent) throw new Error('agentOf() on a route without agent auth');
  return request.agent;
}

export function deviceOf(request: FastifyRequest): DevicePrincipal {
  if (!request.device) throw new Error('deviceOf() on a route without device auth');
  return request.device;
}

/** The admin token behind a route whose config says `auth: 'admin'` (operator actions record it). */
export function adminOf(request: FastifyRequest): AdminPrincipal {
  if (!request.admin) throw new Error('adminOf() on a route without admin auth');
  return request.admin;
}
