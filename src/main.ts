// Process entry: `cellgate <command>` (serve is the default). A command's modules are loaded when
// it runs: a bad environment is refused before the service's modules are loaded, and `serve`
// does not carry the other commands' code. Stripping and compiling the TypeScript is most of a
// start: src/entry.mjs turns Node's compile cache on before this file loads.
const { ConfigError, loadConfig } = await import('./config.ts');

const COMMANDS = ['serve', 'migrate', 'admin', 'device', 'demo', 'send', 'messages', 'events', 'status'];
/** The agent-side commands: REST API clients that need no service configuration (src/cli/agent-commands.ts). */
const AGENT_COMMANDS = ['send', 'messages', 'events', 'status'];

const USAGE = `usage: cellgate <command> [options]

commands:
  serve                          start the service (the default command)
  migrate                        apply the database migrations and exit
  admin create-token             print a new admin token, shown only once
    --label <text>               a label to recognise the token by later
  device simulate                run a simulated phone against a running service until Ctrl-C
    --key <cg_dev_...>           the phone's device key (required; repeat it to run several phones)
    --base-url <url>             the service to call (default: CELLGATE_BASE_URL, else CELLGATE_HOST:CELLGATE_PORT)
    --fail-rate <0..1>           share of sends reported as failed (default 0)
    --delivery-delay-ms <N>      milliseconds from claiming a message to reporting it delivered (default 500)
    --poll-wait <S>              seconds each long-poll for outbound messages waits (0-30, default 25)
    --report-sending             also report the "sending" state before delivering
    --inbound-from <+1555...>    upload one received text from this number (with --inbound-text)
    --inbound-text <text>        the text of that received message (with --inbound-from)
  device run                     run this Android phone as a cell through Termux:API until Ctrl-C (docs/android.md)
    --key <cg_dev_...>           the phone's device key (required)
    --base-url <url>             the service to call (default: CELLGATE_BASE_URL)
    --sim-slot <N>               SIM slot to send from on a dual-SIM phone (termux-sms-send -s; default: the phone's default SIM)
    --state-dir <dir>            where the inbox position and the queue of unsent reports live (default ~/.cellgate)
    --poll-wait <S>              seconds each long-poll for outbound messages waits (0-30, default 25)
    --inbox-interval <S>         seconds between reads of the SMS inbox (default 5)
    --command-timeout <S>        seconds a termux-* command may run before it is killed (default 30)
  device doctor                  check this phone is ready for device run: commands, permissions, server, key, clock
    --key <cg_dev_...>           the phone's device key (required)
    --base-url <url>             the service to call (default: CELLGATE_BASE_URL)
    --command-timeout <S>        seconds a termux-* command may run before it is killed (default 30)
  demo                           run the end-to-end demo on a temporary database

agent commands (call a running service with an API key: CELLGATE_API_KEY or --key):
  send                           send a text from a cell; prints the queued message's id and status
    --cell <cell_id>             the cell to send from (cell_...; required)
    --to <number>                the recipient, E.164 (+14155550123; required)
    --idempotency-key <key>      a key that makes a retried send safe (the Idempotency-Key header)
    --wait                       wait until the message is delivered, failed or canceled (or sent, from a phone without delivery reports), and print it
    --timeout <S>                seconds --wait waits at most (default 120)
  messages ls                    list a cell's messages, newest first, as a table
    --cell <cell_id>             the cell whose messages to list (cell_...; required)
    --direction <dir>            only inbound or only outbound messages
    --limit <N>                  how many messages to list (1-200, default 20)
    --cursor <c>                 the next page, as the previous listing printed it
  events tail                    print each event of the live event stream until Ctrl-C
    --types <message.*,cell.*>   only these event types, exact or prefix.* (default: every type)
    --since <evt_...>            first replay the retained events after this one
    --json                       print each event's envelope as one JSON line
  status                         the organization's health checks as ok/warn/fail lines (exit 1 on a fail)
  every agent command also takes:
    --base-url <url>             the service to call (default: CELLGATE_BASE_URL, else CELLGATE_HOST:CELLGATE_PORT, 127.0.0.1:8080)
    --key <cg_live_...>          the API key (default: CELLGATE_API_KEY)

options:
  -h, --help                     print this help (after a command: that command's)
  -v, --version                  print the version

The service is configured by CELLGATE_* environment variables (see the README). A bad command line
exits with status 2, any other failure with 1.`;

const SERVE_USAGE = `usage: cellgate serve
  start the service: apply the migrations, then listen on CELLGATE_HOST:CELLGATE_PORT until SIGTERM
  or SIGINT; configured by CELLGATE_* environment variables (README, "Configuration"); takes no options`;

const MIGRATE_USAGE = `usage: cellgate migrate
  apply the database migrations to CELLGATE_DATABASE_URL and exit; takes no options`;

/** The version the API reports (GET /health). */
const version = async () => (await import('./modules/system/routes.ts')).VERSION;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...args] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`cellgate ${await version()}\n`);
    return;
  }
  const { parseCommandLine, UsageError } = await import('./cli/usage.ts');
  if (!COMMANDS.includes(command)) {
    const what = command.startsWith('-')
      ? `unknown option ${JSON.stringify(command)}`
      : `unknown command ${JSON.stringify(command)}`;
    throw new UsageError(
      `${what}; the commands are ${COMMANDS.join(', ')} (cellgate --help describes them and their options)`,
    );
  }
  // Agent commands are clients: the service's configuration (database, port) is not theirs to check.
  if (AGENT_COMMANDS.includes(command)) return (await import('./cli/agent-commands.ts')).agentCommand(command, args);
  // Each command reads its flags before the configuration: --help works whatever the environment.
  switch (command) {
    case 'serve': {
      parseCommandLine({ command: 'cellgate serve', usage: SERVE_USAGE, options: {} }, args);
      // The configuration first: `(await import(...)).serve(loadConfig())` would load the whole
      // service (about a second) before a bad variable is refused.
      const config = loadConfig();
      return (await import('./cli/serve.ts')).serve(config);
    }
    case 'migrate': {
      parseCommandLine({ command: 'cellgate migrate', usage: MIGRATE_USAGE, options: {} }, args);
      const config = loadConfig();
      const { database, applied } = await (await import('./cli/errors.ts')).openMigrated(config.databaseUrl);
      await database.close().catch(() => {});
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      return;
    }
    case 'admin':
      return (await import('./cli/admin.ts')).adminCommand(args, () => loadConfig());
    case 'device': {
      // A client of the service this environment configures (CELLGATE_BASE_URL, else host and port).
      const { localBaseUrl } = await import('./cli/agent-http.ts');
      return (await import('./cli/device-simulator.ts')).deviceCommand(args, localBaseUrl().url);
    }
    case 'demo':
      return (await import('./cli/demo.ts')).demoCommand(args);
  }
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  const [{ cliErrorOutcome }, { StartError }] = await Promise.all([
    import('./cli/usage.ts'),
    import('./cli/errors.ts'),
  ]);
  // --help after a command (stdout, exit 0), a bad command line (exit 2), a command's own failure (exit 1).
  const outcome = cliErrorOutcome(error);
  if (outcome) {
    if (outcome.stdout) process.stdout.write(outcome.stdout);
    if (outcome.stderr) process.stderr.write(outcome.stderr);
    process.exit(outcome.exitCode);
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`cellgate: ${error.message}\n`);
  } else if (error instanceof StartError) {
    // One line that says what to do; the cause's stack only when debugging.
    process.stderr.write(`cellgate: ${error.message}\n`);
    if (['debug', 'trace'].includes(process.env.CELLGATE_LOG_LEVEL ?? '')) {
      process.stderr.write(`${error.cause instanceof Error ? error.cause.stack : String(error.cause)}\n`);
    }
  } else if (['debug', 'trace'].includes(process.env.CELLGATE_LOG_LEVEL ?? '')) {
    process.stderr.write(`cellgate: ${error instanceof Error ? error.stack : String(error)}\n`);
  } else {
    // Unexpected: one line still, the stack only when debugging.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(`cellgate: ${message.split('\n')[0]} (CELLGATE_LOG_LEVEL=debug shows the stack)\n`);
  }
  process.exit(1);
});
