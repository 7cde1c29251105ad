// `cellgate admin create-token [--label <text>]`: prints a new admin token once.
import type { Config } from '../config.ts';
import { systemClock } from '../lib/clock.ts';
import { AdminRepository } from '../modules/admin/repository.ts';
import { AdminService } from '../modules/admin/service.ts';
import { openMigrated } from './errors.ts';
import { HelpRequest, parseCommandLine, UsageError, wantsHelp } from './usage.ts';

// Still exported here for the commands that import it from this file; it lives in usage.ts so
// that the device agent does not pull this file's database code into its bundle.
export { UsageError };

export const ADMIN_USAGE = `usage: cellgate admin create-token [--label <text>]
  create-token                   print a new admin token, shown only once (stdout; the note goes to stderr)
  --label <text>                 a label to recognise the token by later`;

/** The command line is checked before the configuration is read: --help works in any environment. */
export async function adminCommand(args: string[], config: () => Config): Promise<void> {
  const [action, ...rest] = args;
  if (action !== undefined && action !== 'create-token' && wantsHelp([action])) throw new HelpRequest(ADMIN_USAGE);
  if (action !== 'create-token') {
    throw new UsageError(
      `${action === undefined ? 'admin needs an action' : `unknown admin action ${JSON.stringify(action)}`}: the action is create-token (cellgate admin --help)`,
    );
  }
  const { values } = parseCommandLine(
    { command: 'cellgate admin create-token', usage: ADMIN_USAGE, options: { label: { type: 'string' } } },
    rest,
  );
  const { database } = await openMigrated(config().databaseUrl);
  try {
    const admin = new AdminService({
      repo: new AdminRepository(database.db),
      clock: systemClock,
      bootstrapToken: null,
    });
    const { id, token } = await admin.createToken(values.label ?? null);
    process.stdout.write(`${token}\n`);
    process.stderr.write(`admin token ${id} created; it is shown only this once\n`);
  } finally {
    await database.close();
  }
}
