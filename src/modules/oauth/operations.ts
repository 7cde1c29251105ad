// The organization's side of OAuth as operations (src/operations): reading and deciding an
// authorization request (consent), and the grants it gave; bound to REST in ./consent-routes.ts.
// API keys only: an access token never approves or manages grants.
import { Type } from 'typebox';
import { PaginationQuery, pageOf } from '../../http/pagination.ts';
import { IdField, Nullable, Timestamp } from '../../http/schemas.ts';
import { API_KEY_ONLY, defineOperation } from '../../operations/operation.ts';
import type { OAuthService } from './service.ts';

const REQUEST_ID = 'oar_01jdx5a1b2c3d4e5f6g7h8j9k0';

export const AuthorizationRequest = Type.Object(
  {
    id: Type.String({ description: 'oar_... id' }),
    status: Type.Enum(['pending', 'approved', 'denied']),
    client_id: Type.String(),
    client_name: Nullable(Type.String()),
    redirect_uri: Type.String(),
    redirect_host: Type.String({ description: 'Where the user is sent back to: show it on the consent screen.' }),
    scopes: Type.Array(Type.String()),
    resource: Type.String({
      description: 'The audience of the tokens: {base_url}/v1 (REST API) or {base_url}/mcp (MCP endpoint).',
    }),
    created_at: Timestamp,
    expires_at: Timestamp,
  },
  {
    $id: 'OAuthAuthorizationRequest',
    description: 'An authorization request waiting for consent.',
    examples: [
      {
        id: REQUEST_ID,
        status: 'pending',
        client_id: 'ocl_01jdx5a0b1c2d3e4f5g6h7j8k9',
        client_name: 'Acme Assistant',
        redirect_uri: 'https://assistant.example.com/oauth/callback',
        redirect_host: 'assistant.example.com',
        scopes: ['cells:read', 'messages:send'],
        resource: 'https://api.cellgate.example/v1',
        created_at: '2026-11-21T12:00:00.000Z',
        expires_at: '2026-11-21T12:10:00.000Z',
      },
    ],
  },
);

export const ConsentResult = Type.Object(
  {
    redirect_url: Type.String({
      description: "The client's redirect URI with code, state and iss (or error=access_denied): send the user there.",
    }),
  },
  {
    $id: 'OAuthConsentResult',
    description: 'Where to send the user after the decision.',
    examples: [
      {
        redirect_url:
          'https://assistant.example.com/oauth/callback?code=cg_ac_Q8fK2mN4pR7tY1wZ3aB5cD6eF9gH0jK&state=xyz&iss=https%3A%2F%2Fapi.cellgate.example',
      },
    ],
  },
);

const GRANT_EXAMPLE = {
  id: 'grt_01jdx5b2c3d4e5f6g7h8j9k0m1',
  client_id: 'ocl_01jdx5a0b1c2d3e4f5g6h7j8k9',
  client_name: 'Acme Assistant',
  scopes: ['cells:read', 'messages:send'],
  resource: 'https://api.cellgate.example/v1',
  created_at: '2026-11-21T12:00:05.000Z',
};
const Grant = Type.Object(
  {
    id: Type.String({ description: 'grt_... id' }),
    client_id: Type.String(),
    client_name: Nullable(Type.String()),
    scopes: Type.Array(Type.String()),
    resource: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'OAuthGrant', description: 'Access the organization granted to an OAuth client.', examples: [GRANT_EXAMPLE] },
);

export const GrantList = pageOf('grants', Grant, 'OAuthGrantList', 'A page of active grants.', GRANT_EXAMPLE);

const REQUEST_ID_FIELD = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The request parameter of the consent URL.',
});

export function consentOperations(oauth: OAuthService) {
  return {
    getAuthorizationRequest: defineOperation({
      name: 'get_authorization_request',
      summary: 'Read an authorization request before consenting',
      description:
        'The client, its redirect host, the scopes and the resource the request asks for. The first organization to read or decide a request holds it; for any other it is 404.',
      ...API_KEY_ONLY,
      input: Type.Object({ request_id: IdField('oar') }),
      output: AuthorizationRequest,
      run: (ctx, input) => oauth.describeRequest(ctx.organizationId, input.request_id),
    }),
    decideAuthorizationRequest: defineOperation({
      name: 'decide_authorization_request',
      summary: 'Approve or deny an authorization request',
      description:
        "Decides once (409 conflict when already decided or expired); another organization's request is 404. Approving answers the redirect URL with a single-use code (valid 60 s), state and iss; denying answers it with error=access_denied.",
      ...API_KEY_ONLY,
      errors: ['not_found', 'conflict'],
      input: Type.Object(
        { request_id: REQUEST_ID_FIELD, approve: Type.Boolean() },
        { additionalProperties: false, examples: [{ request_id: REQUEST_ID, approve: true }] },
      ),
      output: ConsentResult,
      run: (ctx, input) => oauth.decide(ctx.organizationId, input.request_id, input.approve),
    }),
    listOAuthGrants: defineOperation({
      name: 'list_oauth_grants',
      summary: 'List the OAuth grants of the organization',
      description: '',
      ...API_KEY_ONLY,
      input: Type.Object(PaginationQuery),
      output: GrantList,
      run: (ctx, input) => oauth.listGrants(ctx.organizationId, input),
    }),
    revokeOAuthGrant: defineOperation({
      name: 'revoke_oauth_grant',
      summary: 'Revoke an OAuth grant',
      description: 'Its access and refresh tokens stop working at once, in every process.',
      ...API_KEY_ONLY,
      status: 204,
      input: Type.Object({ grant_id: IdField('grt') }),
      output: Type.Null(),
      run: async (ctx, input) => {
        await oauth.revokeGrant(ctx.organizationId, input.grant_id);
        return null;
      },
    }),
  };
}

export type ConsentOperations = ReturnType<typeof consentOperations>;
