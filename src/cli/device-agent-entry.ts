// The single-file device agent: GET /v1/device/agent.mjs bundles this file with esbuild
// (src/modules/devices/agent-bundle.ts), so a phone runs `node agent.mjs run|doctor ...` with the
// same flags as `cellgate device run|doctor`, without cloning the repository or running npm.
// Everything it imports ends up on the phones: only agent code (device-*.ts, usage.ts) and node:
// builtins, never the service's modules (the bundle test checks the import graph).
import { agentCommand, agentUsage, UNEXPECTED_EXIT } from './device-agent.ts';
import { errorText } from './device-driver.ts';
import { AGENT_VERSION } from './device-termux.ts';
import { cliErrorOutcome, HelpRequest, UsageError } from './usage.ts';

const PROG = 'node agent.mjs';
const HELP = `${agentUsage(PROG)}

The Cellgate device agent: this Android phone as a cell, through Termux and Termux:API (docs/android.md).
  doctor                  check the phone is ready: termux-* commands, permissions, SIM, service, key, clock
  run                     run until Ctrl-C: heartbeat, send claimed texts, upload received ones
  --key <cg_dev_...>      the phone's device key (required)
  --base-url <url>        the service to call (default: CELLGATE_BASE_URL)
  --sim-slot <N>          SIM slot to send from on a dual-SIM phone (termux-sms-send -s)
  --state-dir <dir>       where the inbox position and the queue of unsent reports live (default ~/.cellgate)
  --poll-wait <S>         seconds each long-poll for outbound messages waits (0-30, default 25)
  --inbox-interval <S>    seconds between reads of the SMS inbox (default 5)
  --command-timeout <S>   seconds a termux-* command may run before it is killed (default 30)
  -v, --version           print the version
  -h, --help              print this help
Exit status 1: a rejected (rotated) key or a failed doctor check; 2: a bad command line; 70: an
unexpected failure (starting again may help).`;

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help')
    throw new HelpRequest(HELP);
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${AGENT_VERSION} (node ${process.versions.node})\n`);
    return;
  }
  if (command !== 'run' && command !== 'doctor')
    throw new UsageError(
      `unknown command ${JSON.stringify(command)}: the commands are run and doctor (${PROG} --help)`,
    );
  await agentCommand(command, args, process.env.CELLGATE_BASE_URL ?? '', PROG);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // --help (exit 0) and a bad command line (one line, exit 2), as every cellgate command.
  const outcome = cliErrorOutcome(error);
  if (outcome?.stdout) process.stdout.write(outcome.stdout);
  process.stderr.write(
    outcome ? (outcome.stderr ?? '') : `cellgate: ${(error instanceof Error && error.stack) || errorText(error)}\n`,
  );
  process.exit(outcome ? outcome.exitCode : UNEXPECTED_EXIT);
});
