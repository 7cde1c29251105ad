// The reference server for overhead ratios: bare Fastify 5, no logger, one small JSON route.
// Started by bench/lib.ts (startBareFastify) on the port given in PORT.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world', ok: true }));

const close = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', close);
process.on('SIGINT', close);
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
