// The OAuth protocol endpoints (contract §8): discovery (RFC 8414, RFC 9728), registration
// (RFC 7591), the authorization endpoint, and the token (RFC 6749, 7636, 8707), introspection
// (RFC 7662) and revocation (RFC 7009) endpoints. These answer OAuth's own error JSON, never
// problem+json, and are described by the authorization server metadata rather than the OpenAPI
// document (their error model is not the API's).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { asApiError } from '../../http/errors.ts';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { BearerResource } from '../../operations/principals.ts';
import { addressLimit, type RateLimiter } from '../../http/rate-limit.ts';
import type { Bucket } from '../../lib/rate-limit-policy.ts';
import { MAX_METADATA_BYTES, type OAuthClients, type PresentedClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { errorPage, PAGE_HEADERS } from './pages.ts';
import { serverMetadata, type OAuthService, type Params } from './service.ts';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const FORM_LIMIT = 16 * 1024;

/** Whatever went wrong, as an OAuth error (the registration endpoint says invalid_client_metadata). */
function asOAuthError(error: unknown, request: FastifyRequest): OAuthError {
  const registration = request.routeOptions.url === '/oauth/register';
  if (error instanceof OAuthError) return error;
  const api = asApiError(error, request);
  // A client address over its limit must tell "slow down" from "down": rate_limited, not temporarily_unavailable.
  if (api.status === 429) return new OAuthError('rate_limited', api.message, 429, api.headers);
  if (api.status === 503) return new OAuthError('temporarily_unavailable', api.message, api.status, api.headers);
  if (api.status >= 500) return new OAuthError('server_error', api.message, 500);
  if (api.status === 415)
    return new OAuthError(
      registration ? 'invalid_client_metadata' : 'invalid_request',
      registration
        ? 'Send the client metadata as application/json.'
        : 'Send the parameters as application/x-www-form-urlencoded.',
    );
  if (api.status === 413 && registration)
    return new OAuthError(
      'invalid_client_metadata',
      `The client metadata must be at most ${MAX_METADATA_BYTES / 1024} KB.`,
    );
  return new OAuthError(
    registration ? 'invalid_client_metadata' : 'invalid_request',
    api.message,
    api.status === 401 ? 400 : api.status,
  );
}

function sendOAuth(reply: FastifyReply, status: number, body: unknown, headers: Record<string, string> = {}) {
  return reply
    .code(status)
    .headers({ ...NO_STORE, ...headers })
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/** The authorization endpoint's errors: a page, never a redirect to an unchecked URI. */
function sendPage(reply: FastifyReply, status: number, message: string, headers?: Record<string, string>) {
  return reply
    .code(status)
    .headers({ ...PAGE_HEADERS, ...headers })
    .type('text/html; charset=utf-8')
    .send(errorPage(message).toString());
}

/** The form parameters of a request; a repeated name gives several values (refused by the service). */
function formParams(body: unknown): Params {
  if (typeof body !== 'string')
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const seen = params[name];
    params[name] = seen === undefined ? value : [...[seen].flat(), value];
  }
  return params;
}

function presentedClient(request: FastifyRequest, params: Params): PresentedClient {
  const one = (name: string) => {
    const value = params[name];
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `The parameter ${name} is repeated.`);
    return value;
  };
  return {
    authorization: request.headers.authorization,
    clientId: one('client_id'),
    clientSecret: one('client_secret'),
  };
}

const SERVER_EXAMPLE = serverMetadata(
  'https://api.cellgate.example',
  ['cells:read', 'messages:send'],
  'https://api.cellgate.example/docs',
);

/** Read off the example: every field of the metadata is a string, a list of strings or a flag. */
const ServerMetadata = Type.Object(
  Object.fromEntries(
    Object.entries(SERVER_EXAMPLE).map(([name, value]) => [
      name,
      typeof value === 'boolean' ? Type.Boolean() : Array.isArray(value) ? Type.Array(Type.String()) : Type.String(),
    ]),
  ),
  { $id: 'OAuthServerMetadata', description: 'RFC 8414 authorization server metadata.', examples: [SERVER_EXAMPLE] },
);

const ResourceMetadata = Type.Object(
  {
    resource: Type.String({ description: 'The resource identifier: the audience of the tokens it takes.' }),
    authorization_servers: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
    resource_documentation: Type.String(),
  },
  {
    $id: 'OAuthProtectedResourceMetadata',
    description: 'RFC 9728 protected resource metadata.',
    examples: [
      {
        resource: 'https://api.cellgate.example/v1',
        authorization_servers: ['https://api.cellgate.example'],
        scopes_supported: ['cells:read', 'messages:send'],
        bearer_methods_supported: ['header'],
        resource_name: 'Cellgate REST API',
        resource_documentation: 'https://api.cellgate.example/docs',
      },
    ],
  },
);

/** Per client address, on the two endpoints anyone may write through (contract §8). */
export interface AddressLimits {
  register: Bucket | null;
  authorize: Bucket | null;
}

/**
 * Defaults sized so one address can add at most about 1 MB a minute (bench/oauth-growth.ts):
 * 20 registrations an hour (16 KB each at most) and 30 authorization requests a minute (deleted
 * 10 minutes later), each with a full burst.
 */
export const DEFAULT_ADDRESS_LIMITS: AddressLimits = {
  register: { rate: 20 / 3600, burst: 20 },
  authorize: { rate: 30 / 60, burst: 30 },
};

export interface ProtocolRoutesDeps {
  oauth: OAuthService;
  clients: OAuthClients;
  docsUrl: string;
  /** The app's rate limiter and clock (absent: the endpoints are not limited per address). */
  limiter?: RateLimiter;
  now?: () => number;
  limits: AddressLimits;
}

export function registerProtocolRoutes(app: App, deps: ProtocolRoutesDeps): void {
  const { oauth, clients, docsUrl } = deps;
  const limit = (name: string, bucket: Bucket | null, detail: string) =>
    deps.limiter && deps.now && bucket
      ? [addressLimit({ limiter: deps.limiter, now: deps.now, name, bucket, detail })]
      : [];
  const registerLimit = limit(
    'oauth_register',
    deps.limits.register,
    'Too many client registrations from this address; try again later.',
  );
  const authorizeLimit = limit(
    'oauth_authorize',
    deps.limits.authorize,
    'Too many authorization requests from this address; try again later.',
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getOAuthServerMetadata',
        tags: ['OAuth'],
        summary: 'OAuth authorization server metadata (RFC 8414)',
        description:
          'Endpoints, scopes, grant types and client authentication methods. PKCE with S256 is required of every client.',
        response: { 200: Described(ServerMetadata, 'The authorization server metadata.') },
      },
    },
    async () => oauth.serverMetadata(docsUrl),
  );

  const resources: [string, BearerResource, string][] = [
    ['/.well-known/oauth-protected-resource', 'v1', 'getOAuthProtectedResourceMetadata'],
    ['/.well-known/oauth-protected-resource/v1', 'v1', 'getOAuthProtectedResourceMetadataV1'],
    ['/.well-known/oauth-protected-resource/mcp', 'mcp', 'getOAuthProtectedResourceMetadataMcp'],
  ];
  for (const [url, resource, operationId] of resources) {
    app.get(
      url,
      {
        config: { auth: 'public' },
        schema: {
          operationId,
          tags: ['OAuth'],
          summary: `Protected resource metadata of ${resource === 'v1' ? 'the REST API' : 'the MCP endpoint'} (RFC 9728)`,
          description: `Names the authorization server of the resource ${resource === 'v1' ? '{base_url}/v1' : '{base_url}/mcp'}; an access token is accepted only by the resource it was issued for.`,
          response: { 200: Described(ResourceMetadata, 'The protected resource metadata.') },
        },
      },
      async () => oauth.resourceMetadata(resource, docsUrl),
    );
  }

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const url = request.routeOptions.url;
      const oauthError = asOAuthError(error, request);
      if (oauthError.status >= 500) request.log.error({ err: error }, 'OAuth request failed');
      if (url === '/oauth/authorize') return sendPage(reply, oauthError.status, oauthError.message, oauthError.headers);
      return sendOAuth(reply, oauthError.status, oauthError.body(), oauthError.headers);
    });
    const route = { config: { auth: 'public' as const }, schema: { hide: true } };

    scope.post(
      '/oauth/register',
      { ...route, bodyLimit: MAX_METADATA_BYTES, onRequest: registerLimit },
      async (request, reply) => sendOAuth(reply, 201, await clients.register(request.body)),
    );

    scope.get('/oauth/authorize', { ...route, onRequest: authorizeLimit }, async (request, reply) => {
      const outcome = await oauth.authorize(request.query as Params);
      if (outcome.kind === 'page') return sendPage(reply, outcome.status ?? 400, outcome.message, outcome.headers);
      return reply.code(303).headers({ 'cache-control': 'no-store', location: outcome.location }).send();
    });

    for (const endpoint of ['token', 'introspect'] as const) {
      scope.post(`/oauth/${endpoint}`, route, async (request, reply) => {
        const params = formParams(request.body);
        return sendOAuth(reply, 200, await oauth[endpoint](params, presentedClient(request, params)));
      });
    }

    scope.post('/oauth/revoke', route, async (request, reply) => {
      const params = formParams(request.body);
      await oauth.revoke(params, presentedClient(request, params));
      return reply.code(200).headers(NO_STORE).send();
    });
  });
}
