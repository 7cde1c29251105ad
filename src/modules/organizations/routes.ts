// Sign-up, verification, whoami and API keys (contract §3).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Body, Described, IdParam, NoContent, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { MAX_ACTIVE_KEYS, type OrganizationsService } from './service.ts';

const OrganizationStatus = Type.Enum(['unverified', 'active', 'suspended']);

const KEY_EXAMPLE = {
  id: 'key_01jdx2a9b8c7d6e5f4g3h2j1k0',
  prefix: 'cg_live_Xk3q',
  created_at: '2026-11-21T11:50:00.000Z',
  last_used_at: '2026-11-21T12:00:00.000Z',
};
const API_KEY_EXAMPLE = 'cg_live_Xk3qV8mN2pR7tY4wZ9aB1cD6eF0gH5jK';

const KeySummary = Type.Object(
  {
    id: Type.String({ description: 'key_... id (or the OAuth token id)' }),
    prefix: Type.String({ description: 'First characters of the key, safe to display.' }),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
  },
  { $id: 'ApiKeySummary', description: 'The calling credential, without its secret.', examples: [KEY_EXAMPLE] },
);

const ApiKey = Type.Object(
  {
    id: Type.String({ description: 'key_... id' }),
    name: Nullable(Type.String()),
    prefix: Type.String({ description: 'First characters of the key, safe to display.' }),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
  },
  {
    $id: 'ApiKey',
    description: 'An API key of the organization, without its secret.',
    examples: [{ ...KEY_EXAMPLE, name: 'production' }],
  },
);

const CreatedApiKey = Type.Object(
  { ...ApiKey.properties, api_key: Type.String({ description: 'cg_live_... Shown once; store it now.' }) },
  {
    $id: 'CreatedApiKey',
    description: 'A new API key with its secret, shown once.',
    examples: [{ ...KEY_EXAMPLE, name: 'production', last_used_at: null, api_key: API_KEY_EXAMPLE }],
  },
);

const ApiKeyList = Type.Object(
  { keys: Type.Array(ApiKey), next_cursor: NextCursor },
  {
    $id: 'ApiKeyList',
    description: 'A page of active API keys.',
    examples: [{ keys: [{ ...KEY_EXAMPLE, name: 'production' }], next_cursor: null }],
  },
);

const SignUpRequest = Body(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    organization_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { examples: [{ email: 'agent@example.com', organization_name: 'Acme Bistro' }] },
);

const SignUpResponse = Type.Object(
  {
    organization_id: Type.String({ description: 'org_... id' }),
    api_key: Type.String({ description: 'cg_live_... Shown once; store it now.' }),
    status: Type.Literal('unverified'),
    verification: Type.Object(
      {
        channel: Type.Literal('email'),
        sent_to: Type.String(),
        expires_at: Timestamp,
      },
      { description: 'Where the 6-digit code went, and until when it is valid.' },
    ),
  },
  {
    $id: 'SignUpResult',
    description: 'The new organization, its first API key (shown once) and the pending verification.',
    examples: [
      {
        organization_id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9',
        api_key: API_KEY_EXAMPLE,
        status: 'unverified',
        verification: { channel: 'email', sent_to: 'agent@example.com', expires_at: '2026-11-21T12:10:00.000Z' },
      },
    ],
  },
);

const VerificationResult = Type.Object(
  { organization_id: Type.String(), status: Type.Literal('active') },
  {
    $id: 'VerificationResult',
    description: 'The organization, now active.',
    examples: [{ organization_id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9', status: 'active' }],
  },
);

const Whoami = Type.Object(
  {
    organization_id: Type.String(),
    organization_name: Type.String(),
    status: OrganizationStatus,
    key: KeySummary,
    credential_type: Type.Enum(['api_key', 'oauth_token']),
    scopes: Type.Array(Type.String()),
    client: Type.Optional(
      Type.Object(
        {
          id: Type.String({ description: 'client_id of the OAuth client.' }),
          name: Nullable(Type.String()),
        },
        { description: 'The OAuth client the access token was issued to (OAuth tokens only).' },
      ),
    ),
  },
  {
    $id: 'Whoami',
    description: 'The calling credential and its organization.',
    examples: [
      {
        organization_id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9',
        organization_name: 'Acme Bistro',
        status: 'active',
        key: KEY_EXAMPLE,
        credential_type: 'api_key',
        scopes: ['cells:read', 'cells:write', 'messages:read', 'messages:send'],
      },
    ],
  },
);

export function registerOrganizationRoutes(app: App, organizations: OrganizationsService): void {
  app.post(
    '/v1/agent/sign-up',
    {
      config: { auth: 'public', ipLimit: 'sign_up', errors: ['conflict'] },
      schema: {
        operationId: 'signUp',
        tags: ['Organizations'],
        summary: 'Register an organization',
        description:
          'Creates an unverified organization and its first API key, and emails a 6-digit code. Signing up again with an unverified email rotates the key and sends a new code.',
        body: SignUpRequest,
        response: {
          201: Described(SignUpResponse, 'The organization is created (unverified) and the code is emailed.'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await organizations.signUp(request.body)),
  );

  app.post(
    '/v1/agent/verify',
    {
      config: {
        auth: 'agent',
        allowUnverified: true,
        apiKeyOnly: true,
        errors: ['invalid_code', 'code_expired', 'conflict'],
      },
      schema: {
        operationId: 'verifyOrganization',
        tags: ['Organizations'],
        summary: 'Verify the organization with the emailed code',
        body: Body(
          { code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code.' }) },
          { examples: [{ code: '482913' }] },
        ),
        response: { 200: Described(VerificationResult, 'The organization is verified.') },
      },
    },
    async (request) => organizations.verify(agentOf(request), request.body.code),
  );

  app.get(
    '/v1/auth/whoami',
    {
      config: { auth: 'agent', allowUnverified: true },
      schema: {
        operationId: 'whoami',
        tags: ['Organizations'],
        summary: 'Identify the calling credential',
        response: { 200: Described(Whoami, 'The calling credential and its organization.') },
      },
    },
    async (request) => organizations.whoami(agentOf(request)),
  );

  app.get(
    '/v1/auth/keys',
    {
      config: { auth: 'agent', apiKeyOnly: true },
      schema: {
        operationId: 'listApiKeys',
        tags: ['Organizations'],
        summary: 'List active API keys',
        querystring: Type.Object(PaginationQuery),
        response: { 200: Described(ApiKeyList, 'A page of active API keys, newest first.') },
      },
    },
    async (request) => organizations.listKeys(agentOf(request).organizationId, request.query),
  );

  app.post(
    '/v1/auth/keys',
    {
      config: { auth: 'agent', apiKeyOnly: true, errors: ['conflict'] },
      // The body is optional: an absent one means no name.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        operationId: 'createApiKey',
        tags: ['Organizations'],
        summary: 'Create an API key',
        description: `The key is shown once. Rotate by creating a new key, then revoking the old one. An organization holds at most ${MAX_ACTIVE_KEYS} active keys (409 \`conflict\` beyond: revoke one first).`,
        body: Type.Optional(
          Body(
            { name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
            { examples: [{ name: 'production' }] },
          ),
        ),
        response: { 201: Described(CreatedApiKey, 'The new API key with its secret (shown once).') },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await organizations.createKey(agentOf(request).organizationId, request.body?.name ?? null)),
  );

  app.delete(
    '/v1/auth/keys/:key_id',
    {
      config: { auth: 'agent', apiKeyOnly: true, errors: ['conflict'] },
      schema: {
        operationId: 'revokeApiKey',
        tags: ['Organizations'],
        summary: 'Revoke an API key',
        description: "The organization's last active key cannot be revoked (409): create another first.",
        params: IdParam('key_id', 'key'),
        response: { 204: NoContent('Revoked; the key stops working at once.') },
      },
    },
    async (request, reply) => {
      await organizations.revokeKey(agentOf(request).organizationId, request.params.key_id);
      return reply.code(204).send(null);
    },
  );
}
