// The console's sign-in: a 6-digit code mailed to the organization's email (10 minutes, 5
// attempts, stored hashed) opens a browser session (12 hours) carrying a CSRF token. Whether an
// email belongs to an organization is never told: every failure reads the same.
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../lib/mailer.ts';
import { newEmailedCode } from '../../db/emailed-code.ts';
import { constantTimeEqualHex, newSecret, randomBase62, sha256Hex } from '../../lib/secrets.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import type { ConsoleRepository } from './repository.ts';

export { CODE_ATTEMPTS, CODE_TTL_MS } from '../../db/emailed-code.ts';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const SESSION_PREFIX = 'cg_cs_';

export type ConsoleSession = Omit<NonNullable<Awaited<ReturnType<ConsoleRepository['findSession']>>>, 'status'>;

const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Whether a form's CSRF token is its session's (either console's), compared in constant time (as hashes: equal lengths). */
export const csrfMatches = (session: { csrfToken: string }, presented: unknown): boolean =>
  typeof presented === 'string' && constantTimeEqualHex(sha256Hex(session.csrfToken), sha256Hex(presented));

export class ConsoleService {
  private readonly deps: {
    repo: ConsoleRepository;
    /** Who may sign in with an email, and the verification a sign-in code completes: the organizations module owns the rows. */
    organizations: Pick<OrganizationsService, 'findByEmail' | 'confirmEmail'>;
    clock: Clock;
    mailer: Mailer;
    log: FastifyBaseLogger;
    consoleUrl: string;
  };

  constructor(deps: ConsoleService['deps']) {
    this.deps = deps;
  }

  /** Who may sign in: an active organization, or an unverified one (the mailed code proves its email). */
  private async signingIn(email: string) {
    const organization = await this.deps.organizations.findByEmail(normalizeEmail(email));
    return organization?.status === 'active' || organization?.status === 'unverified' ? organization : null;
  }

  /** Mails a new code when the email may sign in. Not awaited, so either way takes as long; a failure is logged. */
  async requestCode(email: string): Promise<void> {
    const organization = await this.signingIn(email);
    if (!organization) return;
    const { repo, mailer, log, consoleUrl } = this.deps;
    const { code, rowFor } = newEmailedCode(this.deps.clock.now());
    await repo.codes.replace(repo.db, rowFor(organization.id));
    mailer
      .send({
        to: normalizeEmail(email),
        subject: `Your Cellgate console sign-in code: ${code}`,
        text: `Your Cellgate console sign-in code is ${code}.\n\nEnter it on the sign-in page at ${consoleUrl}/sign-in. It expires in 10 minutes.\nIf you did not try to sign in, ignore this email: nobody can sign in without the code.\n`,
      })
      .catch((error: unknown) => log.error({ err: error }, 'console sign-in code could not be mailed'));
  }

  /** A new session for a right, live code, else null (all failures alike); `confirmed`: this sign-in verified it. */
  async signIn(email: string, code: string) {
    const organization = await this.signingIn(email);
    if (!organization) return null;
    const { repo, organizations } = this.deps;
    const check = await repo.codes.check(organization.id, code, this.deps.clock.now());
    if (check !== 'ok' || !(await repo.codes.take(organization.id, code))) return null;
    const confirmed = organization.status === 'unverified';
    if (confirmed) await organizations.confirmEmail(organization.id);
    const token = await this.openSession(organization.id);
    return token && { token, confirmed };
  }

  /** A new session's token, for an active organization whose proof (a sign-in or sign-up code) was already checked. */
  async openSession(organizationId: string): Promise<string | null> {
    const now = this.deps.clock.now();
    const token = newSecret(SESSION_PREFIX);
    await this.deps.repo.insertSession(
      {
        token_hash: sha256Hex(token),
        organization_id: organizationId,
        csrf_token: randomBase62(32),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
      },
      now.toISOString(),
    );
    return (await this.session(token)) && token;
  }

  /** The live session behind a cookie value, or null (unknown, expired, organization no longer active). */
  async session(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || !token.startsWith(SESSION_PREFIX) || token.length > 64) return null;
    const row = await this.deps.repo.findSession(sha256Hex(token), this.deps.clock.now().toISOString());
    if (!row || row.status !== 'active') return null;
    const { status: _status, ...session } = row;
    return session;
  }

  async signOut(session: ConsoleSession): Promise<void> {
    await this.deps.repo.deleteSession(session.tokenHash);
  }
}
