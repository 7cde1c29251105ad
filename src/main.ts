// Process entry: `cellgate <command>` (serve is the default).
import { adminCommand, UsageError } from './cli/admin.ts';
import { serve } from './cli/serve.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';

const USAGE = `usage: cellgate <command>
  serve                        start the service (default)
  migrate                      apply database migrations and exit
  admin create-token [--label] print a new admin token`;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...args] = argv;
  if (command === '--help' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate': {
      const database = openDatabase(config.databaseUrl);
      const applied = await migrateToLatest(database);
      await database.close();
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      return;
    }
    case 'admin':
      return adminCommand(config, args);
    default:
      throw new UsageError(USAGE);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`cellgate: ${error.message}\n`);
  } else {
    process.stderr.write(`cellgate: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});
