// `cellgate serve`: migrate, listen, and drain on SIGTERM/SIGINT.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';

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

export async function serve(config: Config): Promise<void> {
  const database = openDatabase(config.databaseUrl);
  await migrateToLatest(database);
  const { app } = await buildApp({ config, database });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining');
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  releaseStartupMemory();
}
