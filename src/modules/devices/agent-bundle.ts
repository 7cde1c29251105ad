// The device agent as one self-contained ES module, built by esbuild from the sources of `cellgate
// device run|doctor` (src/cli/device-agent-entry.ts), so the device protocol exists once. Built on
// the first request, not at start (a service that never serves a phone should not pay for it), and
// kept for the life of the process.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const AGENT_ENTRY = fileURLToPath(new URL('../../cli/device-agent-entry.ts', import.meta.url));

/**
 * The oldest maintained Node line and what doctor requires (Termux ships 24 and newer); the output
 * is plain JavaScript, so it needs no type stripping.
 */
export const AGENT_TARGET = 'node22';

export interface BuiltAgent {
  code: Buffer;
  /** A strong validator: the SHA-256 of the code. */
  etag: string;
  /** The source files bundled, relative to the working directory (what the bundle test checks). */
  inputs: string[];
}

/** Why no agent can be served: esbuild is missing, or the build failed (the cause says which). */
export class AgentBuildError extends Error {}

type Esbuild = Pick<typeof import('esbuild'), 'build'>;

export class AgentBundle {
  private readonly load: () => Promise<Esbuild>;
  private built: Promise<BuiltAgent> | null = null;

  /** `load` imports esbuild (tests pass one that fails). */
  constructor(load: () => Promise<Esbuild> = () => import('esbuild')) {
    this.load = load;
  }

  /** The agent, built once; concurrent first requests share the build, and a failed one is tried again next time. */
  get(): Promise<BuiltAgent> {
    this.built ??= this.build().catch((error: unknown) => {
      this.built = null;
      throw error;
    });
    return this.built;
  }

  private async build(): Promise<BuiltAgent> {
    let esbuild: Esbuild;
    try {
      esbuild = await this.load();
    } catch (error) {
      throw new AgentBuildError(
        'esbuild, which builds the agent, is not installed on the server (it is a dependency of cellgate: install the dependencies with npm ci)',
        { cause: error },
      );
    }
    let result;
    try {
      result = await esbuild.build({
        entryPoints: [AGENT_ENTRY],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: AGENT_TARGET,
        write: false,
        metafile: true,
        // Readable on purpose: an operator may want to see what runs on the phone.
        minify: false,
        legalComments: 'none',
        logLevel: 'silent',
        banner: {
          js: `// Cellgate device agent (${AGENT_TARGET}+): node agent.mjs doctor|run --key cg_dev_... --base-url https://...; docs/android.md`,
        },
      });
    } catch (error) {
      throw new AgentBuildError('the device agent could not be built on the server (its log has the reason)', {
        cause: error,
      });
    }
    const code = Buffer.from(result.outputFiles[0].contents);
    return {
      code,
      etag: `"${createHash('sha256').update(code).digest('base64url')}"`,
      inputs: Object.keys(result.metafile.inputs),
    };
  }
}
