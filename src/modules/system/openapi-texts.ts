// The OpenAPI document as served: its JSON and YAML texts, built once per process and kept with
// their ETags, so a request for it is a buffer write. @fastify/swagger builds the ~900 kB document
// synchronously (a few hundred ms), so each step runs in its own turn of the event loop and other
// requests are served between them (the YAML is ./yaml.ts's, tens of ms). Built on the first
// request, not at start: it holds ~25 MB an idle service does not need.
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isFresh, REVALIDATED_CACHE_CONTROL } from '../../http/conditional.ts';
import type { App } from '../../http/types.ts';
import { jsonToYaml } from './yaml.ts';

/** The text and its strong ETag (a hash of the body). */
const text = (source: string) => {
  const body = Buffer.from(source);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
};

async function build(app: App) {
  await nextTurn();
  const json = JSON.stringify(app.swagger());
  await nextTurn();
  const yaml = jsonToYaml(JSON.parse(json));
  return { json: text(json), yaml: text(yaml) };
}

type OpenApiTexts = Awaited<ReturnType<typeof build>>;
const built = new WeakMap<App, Promise<OpenApiTexts>>();

/**
 * The texts of `app`'s document (call it once the app is ready: the routes are final), built on
 * the first call and kept; concurrent calls share one build, and a failed build is retried by the
 * next call.
 */
export function openApiTexts(app: App): Promise<OpenApiTexts> {
  let texts = built.get(app);
  if (!texts) {
    texts = build(app).catch((error: unknown) => {
      built.delete(app);
      throw error;
    });
    built.set(app, texts);
  }
  return texts;
}

/** Answers `request` with `which` text of the document: ETag, revalidated caching, 304 when fresh. */
export async function sendOpenApi(
  app: App,
  which: keyof OpenApiTexts,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { body, etag } = (await openApiTexts(app))[which];
  reply.headers({ etag, 'cache-control': REVALIDATED_CACHE_CONTROL });
  if (isFresh(request, etag)) return reply.code(304).send();
  return reply
    .type(which === 'yaml' ? 'application/yaml; charset=utf-8' : 'application/json; charset=utf-8')
    .send(body);
}
