// The organizations' schemas: sign-up, verification, whoami and API keys (contract §3).
import { Type } from 'typebox';
import { pageOf } from '../../http/pagination.ts';
import { Body, Nullable, Timestamp } from '../../http/schemas.ts';

const OrganizationStatus = Type.Enum(['unverified', 'active', 'suspended']);

const KEY_EXAMPLE = {
  id: 'key_01jdx2a9b8c7d6e5f4g3h2j1k0',
  prefix: 'cg_live_Xk3q',
  created_at: '2026-11-21T11:50:00.000Z',
  last_used_at: '2026-11-21T12:00:00.000Z',
};
const API_KEY_EXAMPLE = 'cg_live_Xk3qV8mN2pR7tY4wZ9aB1cD6eF0gH5jK';

export const KeySummary = Type.Object(
  {
    id: Type.String({ description: 'key_... id (or the OAuth token id)' }),
    prefix: Type.String({ description: 'First characters of the key, safe to display.' }),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
  },
  { $id: 'ApiKeySummary', description: 'The calling credential, without its secret.', examples: [KEY_EXAMPLE] },
);

export const ApiKey = Type.Object(
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

export const CreatedApiKey = Type.Object(
  { ...ApiKey.properties, api_key: Type.String({ description: 'cg_live_... Shown once; store it now.' }) },
  {
    $id: 'CreatedApiKey',
    description: 'A new API key with its secret, shown once.',
    examples: [{ ...KEY_EXAMPLE, name: 'production', last_used_at: null, api_key: API_KEY_EXAMPLE }],
  },
);

export const ApiKeyList = pageOf('keys', ApiKey, 'ApiKeyList', 'A page of active API keys.', {
  ...KEY_EXAMPLE,
  name: 'production',
});

export const SignUpRequest = Body(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    organization_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { examples: [{ email: 'agent@example.com', organization_name: 'Acme Bistro' }] },
);

export const SignUpResponse = Type.Object(
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

export const VerificationResult = Type.Object(
  { organization_id: Type.String(), status: Type.Literal('active') },
  {
    $id: 'VerificationResult',
    description: 'The organization, now active.',
    examples: [{ organization_id: 'org_01jdx2a0b1c2d3e4f5g6h7j8k9', status: 'active' }],
  },
);

export const Whoami = Type.Object(
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
