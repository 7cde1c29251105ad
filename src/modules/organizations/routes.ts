// Sign-up, verification, whoami and API keys (contract §3), all bound from the organizations'
// operations. Sign-up is public (there is no credential yet: the anonymous caller) and keeps its
// per-IP bucket (`ipLimit: 'sign_up'`).
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { OrganizationOperations } from './operations.ts';
import { ApiKeyList, CreatedApiKey, SignUpResponse, VerificationResult, Whoami } from './schemas.ts';

const TAGS = ['Organizations'];

export function registerOrganizationRoutes(app: App, rest: RestBinder, ops: OrganizationOperations): void {
  rest.bind(app, ops.signUp, {
    method: 'POST',
    url: '/v1/agent/sign-up',
    tags: TAGS,
    ipLimit: 'sign_up',
    response: Described(SignUpResponse, 'The organization is created (unverified) and the code is emailed.'),
  });

  rest.bind(app, ops.verifyOrganization, {
    method: 'POST',
    url: '/v1/agent/verify',
    tags: TAGS,
    response: Described(VerificationResult, 'The organization is verified.'),
  });

  rest.bind(app, ops.whoami, {
    method: 'GET',
    url: '/v1/auth/whoami',
    tags: TAGS,
    response: Described(Whoami, 'The calling credential and its organization.'),
  });

  rest.bind(app, ops.listApiKeys, {
    method: 'GET',
    url: '/v1/auth/keys',
    tags: TAGS,
    response: Described(ApiKeyList, 'A page of active API keys, newest first.'),
  });

  rest.bind(app, ops.createApiKey, {
    method: 'POST',
    url: '/v1/auth/keys',
    tags: TAGS,
    // The body is optional: an absent one means no name.
    preValidation: async (request) => {
      request.body ??= {};
    },
    response: Described(CreatedApiKey, 'The new API key with its secret (shown once).'),
  });

  rest.bind(app, ops.revokeApiKey, {
    method: 'DELETE',
    url: '/v1/auth/keys/:key_id',
    tags: TAGS,
    response: NoContent('Revoked; the key stops working at once.'),
  });
}
