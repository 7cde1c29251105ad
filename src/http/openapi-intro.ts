// The introduction of the OpenAPI document (info.description): the conventions every operation
// shares, as Markdown. Each `##` heading is a section of the reference at /docs (Scalar lists the
// shallowest headings of the introduction in its sidebar), so keep them at one level.
import { ALL_SCOPES } from '../modules/organizations/service.ts';

const scopes = ALL_SCOPES.map((scope) => `\`${scope}\``).join(', ');

/** The introduction; `docsUrl` is where the error pages are (CELLGATE_DOCS_URL). */
export const introduction = (
  docsUrl: string,
) => `Phone lines for software agents: cells (phone numbers carried by real Android phones), messages, conversations, pods, events and webhooks.

Every operation on this page can be tried from it ("Test Request"). The document is also at \`/openapi.yaml\` (and \`/openapi.json\`) for SDK generators; agents can use the MCP endpoint \`POST /mcp\` instead of REST.

## Authentication

Each operation states the credential it takes (its security requirement); under **Authentication** on an operation, enter it to try the operation from this page.

- **API key** (\`Authorization: Bearer cg_live_...\`): returned once by \`POST /v1/agent/sign-up\`; create more with \`POST /v1/auth/keys\`. For the agent API (\`/v1/...\`) and \`POST /mcp\`.
- **OAuth access token** (\`Authorization: Bearer cg_at_...\`): from the authorization server described at \`/.well-known/oauth-authorization-server\` (authorization code with PKCE). Works only on the resource it was issued for (\`/v1\` or \`/mcp\`), within its scopes.
- **Admin token** (\`Authorization: Bearer cg_adm_...\`): the operator's (\`CELLGATE_ADMIN_TOKEN\`, or \`cellgate admin create-token\`). For the operator surface (\`/v1/admin/...\`).
- **Device key** (\`X-Phone-Key: cg_dev_...\`): shown once when the operator adds a phone (\`POST /v1/admin/devices\`). For the device surface (\`/v1/device/...\`) that the app on each phone calls.

A missing, unknown or revoked credential answers 401 \`unauthenticated\` with a \`WWW-Authenticate\` header. Most agent operations need a verified organization (\`organization_unverified\` until the emailed code is confirmed with \`POST /v1/agent/verify\`). OAuth scopes: ${scopes}; a token without the operation's scope answers 403 \`insufficient_scope\`.

## Idempotency

Sends, replies, pod draft sends and cycle jobs take an optional \`Idempotency-Key\` header (1-255 printable ASCII characters; a UUID or your own order id). The key is scoped to the organization and the operation and kept 24 hours:

- the same key with the same request replays the first answer, with \`Idempotent-Replayed: true\`, and does the work once;
- the same key with a different request answers 422 \`idempotency_key_reused\`;
- while the first request is still running, a repeat answers 409 \`idempotency_request_in_progress\`: retry shortly.

Validation errors and 5xx answers are not kept, so a corrected or retried request runs again. Retry a send after a timeout or a dropped connection with the same key.

## Pagination

Lists are cursor-paginated: \`?limit=\` (1-200, default 50) and \`?cursor=\`. A page is an object with the items under a plural name (\`cells\`, \`messages\`, ...) and \`next_cursor\`: pass it as \`cursor\` for the next page; it is \`null\` on the last page. Cursors are opaque; a malformed one answers 400 \`invalid_request\`.

## Errors

Errors are RFC 9457 \`application/problem+json\`: \`type\` (a URL of the error's page), \`title\`, \`status\`, \`detail\` (for a human), \`code\` (for a program: branch on it) and \`request_id\`; a 400 \`invalid_request\` adds \`errors\`, one entry per field. Each operation lists the statuses and codes it can answer; every code has a page in the [error reference](${docsUrl}/errors) at \`${docsUrl}/errors/<code>\` with its causes and fix.

Every response carries \`X-Request-Id\` (quote it when asking for help). Rate limits answer 429 \`rate_limited\` and a temporarily unavailable service 503 \`unavailable\`, both with \`Retry-After\` in seconds.

## Billing

An action that needs money answers 402 \`payment_required\`; its \`payment\` says what to pay (amount, intent, rails, a \`checkout_url\`, x402 quotes) and the \`PAYMENT-REQUIRED\` header carries the x402 requirements (one per configured network). Pay, then repeat the same request: a 402 is never kept under an Idempotency-Key.

For payment discovery (mppx), each operation that can answer 402 carries \`x-payment-info\` (its offers on the configured rails; amounts are null: the price depends on the organization) and this document carries \`x-service-info\`; the MPP rail is described at \`GET /.well-known/mpp\`.

## Events and webhooks

Every change emits an event (\`evt_...\`) with the same envelope: \`id\`, \`type\`, \`created_at\`, \`organization_id\` and \`data\`, the object as the REST API shows it. Events are kept 7 days and delivered two ways:

- **Webhooks**: register an endpoint with \`POST /v1/webhooks\` and the event types it wants. Each event is POSTed to it, signed per [Standard Webhooks](https://www.standardwebhooks.com/) (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`: HMAC-SHA256 with the endpoint's \`whsec_\` secret) and retried with backoff until a 2xx; 410 disables the endpoint. Delivery is at least once: dedupe on \`webhook-id\`. The payload of each event type is under **Webhooks** on this page.
- **The stream**: a WebSocket at \`wss://<host>/v1/events/stream\` with the same credential, optionally \`?types=\` and \`?since=<evt id>\` to replay what was missed; history comes first, then \`{"type":"ready"}\`, then live events.`;
