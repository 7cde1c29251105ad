// `cellgate serve`: migrate, listen, and drain on SIGTERM/SIGINT.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { VERSION } from '../modules/system/routes.ts';
import { listenStartError, openMigrated } from './errors.ts';

/**
 * Starting leaves garbage behind (module sources, schema compilation) and a young generation
 * grown to its largest (64 MB on a machine with much memory) while it was made. One full,
 * memory-reducing collection once listening hands both back: idle RSS about 50 MB lower. Under
 * load the young generation grows again as needed. Node has no call for it: V8's gc() is taken
 * from a context created while --expose-gc is on, and the flag is turned off again.
 */
function releaseStartupMemory(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: object) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** Where the data lives, for people: the SQLite path, or PostgreSQL's host and database (never its credentials). */
export function databaseLabel(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) return `sqlite ${databaseUrl.slice('sqlite:'.length)}`;
  try {
    const url = new URL(databaseUrl);
    return `postgres ${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'postgres';
  }
}

const CARD_PROCESSORS = {
  stripe: 'stripe (Stripe Checkout)',
  local: 'local (the built-in card page: no card is charged)',
  off: 'off (no card rail; set CELLGATE_STRIPE_SECRET_KEY and CELLGATE_STRIPE_WEBHOOK_SECRET for Stripe Checkout)',
};

/** The few human lines printed once listening: where things are and what is configured. */
export function startupBanner(config: Config, listening: string): string {
  const rows: [string, string][] = [
    ['base URL', config.baseUrl],
    ['database', databaseLabel(config.databaseUrl)],
    ['card processor', CARD_PROCESSORS[config.cardProcessor]],
    ['docs', config.docsUrl],
    ['console', config.consoleUrl],
    ['health', `${config.baseUrl}/health`],
    ['admin token', config.adminToken ? 'set' : 'none (CELLGATE_ADMIN_TOKEN, or `cellgate admin create-token`)'],
    ['mail', config.smtpUrl ? 'SMTP' : 'no SMTP (mail goes to the dev outbox, GET /v1/admin/outbox)'],
  ];
  const lines = [
    `Cellgate ${VERSION} listening on ${listening}`,
    ...rows.map(([name, value]) => `  ${name.padEnd(16)}${value}`),
  ];
  if (config.billing && config.cardProcessor === 'local') {
    lines.push(
      'WARNING: CELLGATE_CARD_PROCESSOR is local: the built-in card page credits money without charging any card. ' +
        'It must not face the internet: set the Stripe keys, or CELLGATE_CARD_PROCESSOR=off.',
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function serve(config: Config): Promise<void> {
  // exclusive: a second server on the same SQLite file is refused (src/db/sqlite-file.ts).
  const { database } = await openMigrated(config.databaseUrl, { exclusive: true });
  const { app } = await buildApp({ config, database });
  let closing = false;
  const shutdown = async (signal: string) => {
    // A second Ctrl-C does not wait for the drain: it exits at once.
    if (closing && signal === 'SIGINT') process.exit(130);
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining');
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  let listening: string;
  try {
    listening = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close().catch(() => {});
    await database.close().catch(() => {});
    throw listenStartError(error, config.host, config.port);
  }
  if (config.logLevel !== 'silent') process.stdout.write(startupBanner(config, listening));
  // The OpenAPI texts are built on their first request, not here: ~25 MB more resident for a
  // document most starts never serve (issue 24 §5; src/modules/system/openapi-texts.ts).
  releaseStartupMemory();
}
