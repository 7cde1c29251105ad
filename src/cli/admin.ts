// `cellgate admin create-token [--label <text>]`: prints a new admin token once.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { systemClock } from '../lib/clock.ts';
import { AdminRepository } from '../modules/admin/repository.ts';
import { AdminService } from '../modules/admin/service.ts';
import { UsageError } from './usage.ts';

// Still exported here for the commands that import it from this file; it lives in usage.ts so
// that the device agent does not pull this file's database code into its bundle.
export { UsageError };

export async function adminCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'create-token') throw new UsageError('usage: cellgate admin create-token [--label <text>]');
  const { values } = parseArgs({ args: rest, options: { label: { type: 'string' } } });
  const database = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
    const admin = new AdminService({ repo: new AdminRepository(database.db), clock: systemClock, bootstrapToken: null });
    const { id, token } = await admin.createToken(values.label ?? null);
    process.stdout.write(`${token}\n`);
    process.stderr.write(`admin token ${id} created; it is shown only this once\n`);
  } finally {
    await database.close();
  }
}
