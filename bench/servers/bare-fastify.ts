// The reference server for overhead ratios: bare Fastify 5, no logger, small JSON routes.
// Started by bench/lib.ts (startBareFastify) on the port given in PORT.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world', ok: true }));
// The same bytes as a whoami answer, so a second ratio separates our per-request work from the
// cost of writing a larger body.
const whoamiShaped = {
  organization_id: 'org_01m7yf0x66hk68c23987cj5fsa',
  organization_name: 'Benchmark Organization',
  status: 'active',
  key: {
    id: 'key_01m7yf0x66hk68c23987cj5fsb',
    prefix: 'cg_live_AbCd',
    created_at: '2026-11-21T07:10:00.000Z',
    last_used_at: '2026-11-21T07:10:01.000Z',
  },
  credential_type: 'api_key',
  scopes: [
    'cells:read',
    'cells:write',
    'messages:read',
    'messages:send',
    'events:read',
    'webhooks:write',
    'billing:read',
    'billing:write',
    'usage:read',
  ],
};
app.get('/whoami-shaped', async () => whoamiShaped);

const close = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', close);
process.on('SIGINT', close);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
