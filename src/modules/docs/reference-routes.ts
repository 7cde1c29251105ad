// The API reference at /docs (Scalar, src/modules/docs/scalar.ts), its script, and /docs/json,
// where Swagger UI served the document before (kept for links to it). Exact paths, no wildcard:
// /docs/errors and any other page under /docs stay their own routes, and an unknown path is a 404.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { isFresh, REVALIDATED_CACHE_CONTROL } from '../../http/conditional.ts';
import { ApiError } from '../../lib/errors.ts';
import { PUBLIC_PAGE } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { sendOpenApi } from '../system/openapi-texts.ts';
import { REFERENCE_CONFIGURATION, referencePolicy } from './reference-config.ts';
import { SCRIPT_PATH, scalarReference, type ReferenceAssets } from './scalar.ts';

export function registerReferenceRoutes(
  app: App,
  config: Config,
  reference: () => Promise<ReferenceAssets> = scalarReference(REFERENCE_CONFIGURATION),
): void {
  async function assets(request: FastifyRequest): Promise<ReferenceAssets> {
    try {
      return await reference();
    } catch (error) {
      request.log.error({ err: error }, 'the API reference could not be rendered');
      throw new ApiError('unavailable', 'The API reference is not available; the document is at /openapi.yaml.', {
        headers: { 'Retry-After': '60' },
      });
    }
  }

  app.get('/docs', PUBLIC_PAGE, async (request, reply) => {
    const { html, inlineScripts } = await assets(request);
    return reply
      .headers({
        'content-security-policy': referencePolicy(config, inlineScripts),
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-cache',
      })
      .type('text/html; charset=utf-8')
      .send(html);
  });

  app.get(SCRIPT_PATH, PUBLIC_PAGE, async (request, reply) => {
    const { script } = await assets(request);
    reply.headers({
      etag: script.etag,
      'cache-control': REVALIDATED_CACHE_CONTROL,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    });
    if (isFresh(request, script.etag)) return reply.code(304).send();
    reply.type('text/javascript; charset=utf-8');
    // 4.3 MB as is, about a quarter of it gzipped: every browser takes gzip.
    if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? ''))
      return reply.header('content-encoding', 'gzip').send(script.gzipped);
    return reply.send(script.body);
  });

  app.get('/docs/json', PUBLIC_PAGE, (request, reply) => sendOpenApi(app, 'json', request, reply));
}
