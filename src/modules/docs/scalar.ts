// The Scalar API reference's page and script, as @scalar/fastify-api-reference renders them, taken
// from the plugin on the first /docs request, not at start: its module inlines Scalar's 4.3 MB
// bundle (+17 MB of RSS), and compiling it blocked the event loop 1.5-2 s. So it runs once, in a
// private Fastify instance inside a worker thread (scalar-worker.mjs); the answers are kept (the
// script also gzipped, with an ETag). Offline: the script comes from this service (`cdn`), and the
// configuration turns off Scalar's services (fonts, telemetry, the AI agent).
import { FAVICON_LINK } from './favicon.ts';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { gzip } from 'node:zlib';
import Fastify from 'fastify';
import type { ApiReferenceConfiguration } from '@scalar/fastify-api-reference';

/** Where the page loads Scalar's standalone script from: this service. */
export const SCRIPT_PATH = '/docs/js/scalar.js';

export interface ReferenceAssets {
  html: string;
  /** CSP sources (`'sha256-...'`) of the page's inline scripts: the call that starts Scalar with its configuration. */
  inlineScripts: string[];
  script: { body: Buffer; gzipped: Buffer; etag: string };
}

type Plugin = typeof import('@scalar/fastify-api-reference');

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('base64');

/** The inline `<script>` bodies of a page, as CSP hash sources. */
export const inlineScriptHashes = (html: string): string[] =>
  [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) => `'sha256-${sha256(match[1])}'`,
  );

export async function render(
  configuration: Partial<ApiReferenceConfiguration>,
  load: () => Promise<Plugin>,
): Promise<ReferenceAssets> {
  const { default: plugin } = await load();
  const instance = Fastify({ logger: false });
  try {
    await instance.register(plugin, { routePrefix: '/docs', configuration: { ...configuration, cdn: SCRIPT_PATH } });
    const [page, script] = await Promise.all([
      instance.inject({ url: '/docs/' }),
      instance.inject({ url: SCRIPT_PATH }),
    ]);
    if (page.statusCode !== 200 || script.statusCode !== 200)
      throw new Error(
        `the Scalar plugin answered ${page.statusCode} for its page and ${script.statusCode} for its script`,
      );
    // lang for screen readers, and the service's icon, as on the other pages.
    const html = page.body
      .replace(/^<!doctype html>\s*<html>/i, '<!doctype html>\n<html lang="en">')
      .replace(/<\/title>/i, `</title>\n    ${FAVICON_LINK}`);
    const body = script.rawPayload;
    return {
      html,
      inlineScripts: inlineScriptHashes(html),
      script: { body, gzipped: await promisify(gzip)(body), etag: `"${sha256(body)}"` },
    };
  } finally {
    await instance.close();
  }
}

/** Renders in a worker thread, so the service's event loop keeps serving meanwhile. */
function renderInWorker(configuration: Partial<ApiReferenceConfiguration>): Promise<ReferenceAssets> {
  return new Promise((resolve, reject) => {
    // No inherited flags: none matters to it, and some (--input-type of `node --eval`) would fail it.
    const worker = new Worker(new URL('./scalar-worker.mjs', import.meta.url), {
      workerData: configuration,
      execArgv: [],
    });
    // A service closing while it renders does not wait for it.
    worker.unref();
    worker.once('message', (assets: ReferenceAssets) => {
      // Buffers arrive as plain Uint8Arrays.
      const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      resolve({
        ...assets,
        script: { ...assets.script, body: buffer(assets.script.body), gzipped: buffer(assets.script.gzipped) },
      });
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the API reference worker exited with code ${code} before answering`)),
    );
  });
}

/**
 * The assets, rendered on the first call (concurrent ones share it, a failed one is retried) and
 * kept for the process. `load` imports the plugin in this thread (tests); else a worker renders.
 */
export function scalarReference(
  configuration: Partial<ApiReferenceConfiguration>,
  load?: () => Promise<Plugin>,
): () => Promise<ReferenceAssets> {
  let assets: Promise<ReferenceAssets> | null = null;
  return () => {
    assets ??= (load ? render(configuration, load) : renderInWorker(configuration)).catch((error: unknown) => {
      assets = null;
      throw error;
    });
    return assets;
  };
}
