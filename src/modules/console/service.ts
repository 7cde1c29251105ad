// The console's sign-in: a 6-digit code mailed to the organization's email (10 minutes, 5
// attempts, stored hashed) opens a browser session (12 hours) carrying a CSRF token. Whether an
// email belongs to an organization is never told: every failure reads the same.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../lib/mailer.ts';
import { checkEmailedCode, codeHash, newEmailedCode } from '../../lib/emailed-code.ts';
import { newSecret, randomBase62, sha256Hex } from '../../lib/secrets.ts';
import type { ConsoleRepository } from './repository.ts';

export { CODE_ATTEMPTS, CODE_TTL_MS } from '../../lib/emailed-code.ts';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const SESSION_PREFIX = 'cg_cs_';

export interface ConsoleSession {
  tokenHash: string;
  organizationId: string;
  organizationName: string;
  organizationEmail: string;
  csrfToken: string;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Who may sign in with an email (OrganizationsService.findByEmail), and the verification a sign-in
 * code completes (OrganizationsService.confirmEmail): the organizations module owns the rows.
 */
export interface OrganizationLookup {
  findByEmail(email: string): Promise<{ id: string; status: string } | undefined>;
  confirmEmail(organizationId: string): Promise<void>;
}

/**
 * An active organization signs in; so does an unverified one, whose sign-in code, mailed to its
 * address, proves the email as its sign-up code would: signing in finishes its verification.
 */
const maySignIn = (status: string) => status === 'active' || status === 'unverified';

/** Whether a form's CSRF token is its session's (either console's), compared in constant time. */
export function csrfMatches(session: { csrfToken: string }, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const expected = Buffer.from(session.csrfToken);
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export class ConsoleService {
  private readonly repo: ConsoleRepository;
  private readonly organizations: OrganizationLookup;
  private readonly clock: Clock;
  private readonly mailer: Mailer;
  private readonly log: FastifyBaseLogger;
  private readonly consoleUrl: string;

  constructor(deps: {
    repo: ConsoleRepository;
    organizations: OrganizationLookup;
    clock: Clock;
    mailer: Mailer;
    log: FastifyBaseLogger;
    consoleUrl: string;
  }) {
    this.repo = deps.repo;
    this.organizations = deps.organizations;
    this.clock = deps.clock;
    this.mailer = deps.mailer;
    this.log = deps.log;
    this.consoleUrl = deps.consoleUrl;
  }

  /**
   * Mails a new code when the email is an active or unverified organization's; otherwise does nothing. The mail
   * is not awaited, so the answer takes as long either way; a failed send is logged.
   */
  async requestCode(rawEmail: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    const organization = await this.organizations.findByEmail(email);
    if (!organization || !maySignIn(organization.status)) return;
    const { code, rowFor } = newEmailedCode(this.clock.now());
    await this.repo.replaceCode(rowFor(organization.id));
    this.mailer
      .send({
        to: email,
        subject: `Your Cellgate console sign-in code: ${code}`,
        text: `Your Cellgate console sign-in code is ${code}.\n\nEnter it on the sign-in page at ${this.consoleUrl}/sign-in. It expires in 10 minutes.\nIf you did not try to sign in, ignore this email: nobody can sign in without the code.\n`,
      })
      .catch((error: unknown) => this.log.error({ err: error }, 'console sign-in code could not be mailed'));
  }

  /**
   * A new session for a right, live code; null otherwise (wrong, expired, spent or unknown email
   * alike). `confirmed`: the organization was unverified, and this sign-in verified it.
   */
  async signIn(
    rawEmail: string,
    code: string,
  ): Promise<{ token: string; session: ConsoleSession; confirmed: boolean } | null> {
    const email = normalizeEmail(rawEmail);
    const organization = await this.organizations.findByEmail(email);
    if (!organization || !maySignIn(organization.status)) return null;
    const check = await checkEmailedCode(await this.repo.findCode(organization.id), code, this.clock.now(), (max) =>
      this.repo.countWrongAttempt(organization.id, max),
    );
    if (check !== 'ok' || !(await this.repo.takeCode(organization.id, codeHash(organization.id, code)))) return null;
    const confirmed = organization.status === 'unverified';
    if (confirmed) await this.organizations.confirmEmail(organization.id);
    const opened = await this.openSession(organization.id);
    return opened && { ...opened, confirmed };
  }

  /**
   * A new session of an active organization, for a proof of control already checked: a sign-in
   * code, or the sign-up code the console's sign-up just verified.
   */
  async openSession(organizationId: string): Promise<{ token: string; session: ConsoleSession } | null> {
    const now = this.clock.now();
    const token = newSecret(SESSION_PREFIX);
    const csrfToken = randomBase62(32);
    const tokenHash = sha256Hex(token);
    await this.repo.insertSession(
      {
        token_hash: tokenHash,
        organization_id: organizationId,
        csrf_token: csrfToken,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
      },
      now.toISOString(),
    );
    const session = await this.session(token);
    return session ? { token, session } : null;
  }

  /** The live session behind a cookie value, or null (unknown, expired, organization no longer active). */
  async session(token: string | undefined): Promise<ConsoleSession | null> {
    if (!token || !token.startsWith(SESSION_PREFIX) || token.length > 64) return null;
    const row = await this.repo.findSession(sha256Hex(token), this.clock.now().toISOString());
    if (!row || row.organization_status !== 'active') return null;
    return {
      tokenHash: row.token_hash,
      organizationId: row.organization_id,
      organizationName: row.organization_name,
      organizationEmail: row.organization_email,
      csrfToken: row.csrf_token,
    };
  }

  async signOut(session: ConsoleSession): Promise<void> {
    await this.repo.deleteSession(session.tokenHash);
  }
}
