// The scripts every console page may use (organization's and operator's), read once at start and
// served from the console's own origin (its CSP allows only 'self' scripts): copy.js, the Copy
// button of a secret shown once.
import { readFileSync } from 'node:fs';
import type { App } from '../../http/types.ts';
import { CONSOLE_PATH } from './http.ts';

/** Where the Copy button's script is served; every page loads it (pageShell). */
export const COPY_SCRIPT = `${CONSOLE_PATH}/copy.js`;
const COPY = readFileSync(new URL('copy.js', import.meta.url), 'utf8');

export function registerConsoleScripts(app: App): void {
  app.get(COPY_SCRIPT, { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .type('text/javascript; charset=utf-8')
      .send(COPY),
  );
}
