// The organizations' operations (src/operations): sign-up, public (there is no credential yet: the
// anonymous caller, on REST and the console's form), and those of a credential: verify and whoami,
// about the calling credential itself (a console session is refused: agentCaller), and the API
// keys, which an API key or the console manages, never an OAuth token (API_KEY_ONLY).
import { Type } from 'typebox';
import { PaginationQuery } from '../../http/pagination.ts';
import { agentCaller, API_KEY_ONLY, defineOperation, definePublicOperation } from '../../operations/operation.ts';
import { ApiKeyList, CreatedApiKey, SignUpRequest, SignUpResponse, VerificationResult, Whoami } from './schemas.ts';
import { MAX_ACTIVE_KEYS, type OrganizationsService } from './service.ts';

/**
 * The emailed code as typed: any string, so that a code of the wrong shape is, like any wrong
 * code, 400 `invalid_code` and one of its 5 attempts (contract §3), not a schema error.
 */
const EmailedCodeField = Type.String({ minLength: 1, maxLength: 64, description: 'The 6-digit code.' });
export function organizationOperations(organizations: OrganizationsService) {
  return {
    signUp: definePublicOperation({
      name: 'sign_up',
      summary: 'Register an organization',
      description:
        'Creates an unverified organization and its first API key, and emails a 6-digit code. Signing up again with an unverified email rotates the key and sends a new code.',
      status: 201,
      errors: ['conflict'],
      input: SignUpRequest,
      output: SignUpResponse,
      run: (_ctx, input) => organizations.signUp(input),
    }),
    verifyOrganization: defineOperation({
      name: 'verify_organization',
      summary: 'Verify the organization with the emailed code',
      description: '',
      ...API_KEY_ONLY,
      allowUnverified: true,
      errors: ['invalid_code', 'code_expired', 'conflict'],
      input: Type.Object({ code: EmailedCodeField }, { additionalProperties: false, examples: [{ code: '482913' }] }),
      output: VerificationResult,
      run: (ctx, input) => organizations.verify(agentCaller(ctx.principal), input.code),
    }),
    whoami: defineOperation({
      name: 'whoami',
      summary: 'Identify the calling credential',
      description: '',
      scope: null,
      allowUnverified: true,
      idempotency: 'none',
      input: Type.Object({}, { additionalProperties: false }),
      output: Whoami,
      run: async (ctx) => organizations.whoami(agentCaller(ctx.principal)),
    }),
    listApiKeys: defineOperation({
      ...API_KEY_ONLY,
      name: 'list_api_keys',
      summary: 'List active API keys',
      description: '',
      input: Type.Object(PaginationQuery, { additionalProperties: false }),
      output: ApiKeyList,
      run: (ctx, query) => organizations.listKeys(ctx.organizationId, query),
    }),
    createApiKey: defineOperation({
      ...API_KEY_ONLY,
      name: 'create_api_key',
      summary: 'Create an API key',
      description: `The key is shown once. Rotate by creating a new key, then revoking the old one. An organization holds at most ${MAX_ACTIVE_KEYS} active keys (409 \`conflict\` beyond: revoke one first).`,
      status: 201,
      errors: ['conflict'],
      input: Type.Object(
        { name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
        { additionalProperties: false, examples: [{ name: 'production' }] },
      ),
      output: CreatedApiKey,
      run: (ctx, input) => organizations.createKey(ctx.organizationId, input.name ?? null),
    }),
    revokeApiKey: defineOperation({
      ...API_KEY_ONLY,
      name: 'revoke_api_key',
      summary: 'Revoke an API key',
      description: "The organization's last active key cannot be revoked (409): create another first.",
      status: 204,
      errors: ['conflict'],
      input: Type.Object(
        { key_id: Type.String({ minLength: 1, maxLength: 64, description: 'key_... id' }) },
        { additionalProperties: false },
      ),
      output: Type.Null(),
      run: async (ctx, input) => {
        await organizations.revokeKey(ctx.organizationId, input.key_id);
        return null;
      },
    }),
  };
}

export type OrganizationOperations = ReturnType<typeof organizationOperations>;
