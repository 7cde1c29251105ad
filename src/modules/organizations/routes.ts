// Sign-up, verification, whoami and API keys (contract §3), all bound from the organizations'
// operations. Sign-up is public (there is no credential yet: the anonymous caller) and keeps its
// per-IP bucket (`ipLimit: 'sign_up'`).
import type { App } from '../../http/types.ts';
import { optionalBody } from '../../http/validation.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { OrganizationOperations } from './operations.ts';

export function registerOrganizationRoutes(app: App, rest: RestBinder, ops: OrganizationOperations): void {
  const bind = restRoutes(app, rest, ['Organizations']);
  const signedUp = 'The organization is created (unverified) and the code is emailed.';
  bind(ops.signUp, 'POST', '/v1/agent/sign-up', signedUp, { ipLimit: 'sign_up' });
  bind(ops.verifyOrganization, 'POST', '/v1/agent/verify', 'The organization is verified.');
  bind(ops.whoami, 'GET', '/v1/auth/whoami', 'The calling credential and its organization.');
  bind(ops.listApiKeys, 'GET', '/v1/auth/keys', 'A page of active API keys, newest first.');
  // The body is optional: an absent one means no name.
  const created = 'The new API key with its secret (shown once).';
  bind(ops.createApiKey, 'POST', '/v1/auth/keys', created, { preValidation: optionalBody });
  bind(ops.revokeApiKey, 'DELETE', '/v1/auth/keys/:key_id', 'Revoked; the key stops working at once.');
}
