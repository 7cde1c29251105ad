// The OAuth authorization-code flow over real HTTP (register, authorize with PKCE, consent by API
// key, token), for multi-process tests and benchmarks that need an access token.
import { createHash, randomBytes } from 'node:crypto';

const REDIRECT = 'http://127.0.0.1:9/callback';

/** The JSON of a response that must be 2xx. */
export async function jsonOf(response: Response) {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, string>;
}

/**
 * Over real HTTP: a public client, authorized by the API key's consent; its first access and refresh
 * tokens, for the REST API or, with `resource` (e.g. `${baseUrl}/mcp`), for that resource.
 */
export async function oauthTokens(baseUrl: string, apiKey: string, scope: string, resource?: string) {
  const client = await jsonOf(
    await fetch(`${baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        client_name: 'test client',
      }),
    }),
  );
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'flow',
    scope,
    ...(resource ? { resource } : {}),
  });
  const authorize = await fetch(`${baseUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
  const requestId = new URL(String(authorize.headers.get('location'))).searchParams.get('request') ?? '';
  const consent = await jsonOf(
    await fetch(`${baseUrl}/v1/oauth/consent`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: requestId, approve: true }),
    }),
  );
  const code = new URL(consent.redirect_url).searchParams.get('code') ?? '';
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: client.client_id,
    ...(resource ? { resource } : {}),
  });
  const issued = await jsonOf(
    await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    }),
  );
  return { clientId: client.client_id, access: issued.access_token, refresh: issued.refresh_token };
}
