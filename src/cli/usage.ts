// The one flag parser of every command, and how a command line's errors end the process: --help
// exits 0, a bad command line exit 2, any other explained failure exit 1, each one `cellgate:`
// line. Only node: builtins: the single-file device agent bundles this file onto the phones.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/** A failure a command explains: printed as one `cellgate:` line, exit status 1. */
export class CliError extends Error {
  readonly exitCode: number = 1;
}

/** A bad command line (an unknown or missing flag, a bad flag value): one `cellgate:` line, exit status 2. */
export class UsageError extends CliError {
  override readonly exitCode: number = 2;
}

/** `--help` (or `-h`): the command's usage goes to stdout and the process exits 0. */
export class HelpRequest extends Error {
  readonly usage: string;
  constructor(usage: string) {
    super('help requested');
    this.usage = usage;
  }
}

/** Whether the command line asks for help: -h or --help before any `--`. */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

export interface CommandLine<O extends ParseArgsOptionsConfig> {
  /** How the command is typed, for the hint in an error ("cellgate device simulate"). */
  command: string;
  /** What --help prints. */
  usage: string;
  options: O;
  /** Whether the command takes arguments besides flags (the text of `send`). */
  positionals?: boolean;
}

/**
 * The flags of `args`: --help throws HelpRequest (before anything else is checked), an unknown
 * flag, a flag without its value or a stray argument throws one UsageError line that names it.
 */
export function parseCommandLine<O extends ParseArgsOptionsConfig>(spec: CommandLine<O>, args: string[]) {
  if (wantsHelp(args)) throw new HelpRequest(spec.usage);
  try {
    return parseArgs({ args, options: spec.options, allowPositionals: spec.positionals ?? false, strict: true });
  } catch (error) {
    // Node's message, without its advice about `--` (not how these commands are used).
    const message = (error instanceof Error ? error.message : String(error))
      .split('\n')[0]
      .replace(/\. To specify a positional argument.*$/, '')
      .replace(/\.$/, '');
    throw new UsageError(`${message} (${spec.command} --help lists the options)`);
  }
}

/** The value of --`name` as a number from `min` to `max`; a UsageError naming the flag otherwise. */
export function numberFlag(name: string, raw: string | undefined, min: number, max: number): number {
  const value = Number(raw ?? '');
  if ((raw ?? '').trim() === '' || !Number.isFinite(value) || value < min || value > max)
    throw new UsageError(`--${name} must be a number from ${min} to ${max}`);
  return value;
}

/**
 * What a command line's error prints and the exit status, or null for an error that is not one
 * (the caller reports it). Help goes to stdout; errors are one `cellgate:` line on stderr.
 */
export function cliErrorOutcome(error: unknown): { stdout?: string; stderr?: string; exitCode: number } | null {
  if (error instanceof HelpRequest) return { stdout: `${error.usage}\n`, exitCode: 0 };
  if (error instanceof CliError) return { stderr: `cellgate: ${error.message}\n`, exitCode: error.exitCode };
  return null;
}
