// Process entry: `cellgate <command>` (serve is the default).
import { adminCommand, UsageError } from './cli/admin.ts';
import { demoCommand } from './cli/demo.ts';
import { deviceCommand } from './cli/device-simulator.ts';
import { serve } from './cli/serve.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';

const USAGE = `usage: cellgate <command>
  serve                        start the service (default)
  migrate                      apply database migrations and exit
  admin create-token [--label] print a new admin token
  device simulate --key <cg_dev_...> [--base-url] [--fail-rate] [--delivery-delay-ms] [--poll-wait]
                  [--inbound-from --inbound-text]   run a simulated phone against a running service
  demo                         run the end-to-end demo on a temporary database`;

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
    case 'device':
      return deviceCommand(args, config.baseUrl);
    case 'demo':
      return demoCommand(args);
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
