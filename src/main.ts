// Process entry: `cellgate <command>` (serve is the default). A command's modules are loaded when
// it runs: a bad environment is refused before the service's modules are loaded, and `serve`
// does not carry the other commands' code. Stripping and compiling the TypeScript is most of a
// start: Node's compile cache (os.tmpdir()/node-compile-cache, each entry checked against its
// source; NODE_DISABLE_COMPILE_CACHE=1 turns it off) keeps the result for the next start.
import { enableCompileCache } from 'node:module';

enableCompileCache();
const { ConfigError, loadConfig } = await import('./config.ts');

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
      return (await import('./cli/serve.ts')).serve(config);
    case 'migrate': {
      const [{ openDatabase }, { migrateToLatest }] = await Promise.all([import('./db/database.ts'), import('./db/migrate.ts')]);
      const database = openDatabase(config.databaseUrl);
      const applied = await migrateToLatest(database);
      await database.close();
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      return;
    }
    case 'admin':
      return (await import('./cli/admin.ts')).adminCommand(config, args);
    case 'device':
      return (await import('./cli/device-simulator.ts')).deviceCommand(args, config.baseUrl);
    case 'demo':
      return (await import('./cli/demo.ts')).demoCommand(args);
    default: {
      const { UsageError } = await import('./cli/admin.ts');
      throw new UsageError(USAGE);
    }
  }
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  if (error instanceof ConfigError || error instanceof (await import('./cli/admin.ts')).UsageError) {
    process.stderr.write(`cellgate: ${error.message}\n`);
  } else {
    process.stderr.write(`cellgate: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});
