// The operator console's sign-in (contract §11): an admin token, checked as the admin surface
// checks it (src/http/auth.ts), opens a browser session (8 hours) of its own with a CSRF token.
// The session keeps the admin token's id: once that token is revoked the session is over. It is
// never an organization's session: another cookie, another prefix, another table.
import type { Clock } from '../../../lib/clock.ts';
import { newSecret, randomBase62, sha256Hex } from '../../../lib/secrets.ts';
import { ADMIN_TOKEN_PREFIX } from '../../admin/service.ts';
import type { OperatorRepository } from './repository.ts';

export const OPERATOR_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
export const OPERATOR_SESSION_PREFIX = 'cg_os_';
/** The id AdminService gives the bootstrap token (CELLGATE_ADMIN_TOKEN): not a row of admin_tokens. */
const BOOTSTRAP_ID = 'adm_bootstrap';

export interface OperatorSession {
  tokenHash: string;
  adminTokenId: string;
  csrfToken: string;
}

/** What the admin surface answers for a presented admin token (AdminService.authenticate). */
export type AdminAuthenticate = (token: string) => Promise<{ tokenId: string } | null>;
/** Whether a created admin token is still unrevoked (AdminService.tokenActive): the admin module owns them. */
export type AdminTokenActive = (tokenId: string) => Promise<boolean>;

export class OperatorSessions {
  private readonly deps: {
    repo: OperatorRepository;
    clock: Clock;
    authenticate: AdminAuthenticate;
    tokenActive: AdminTokenActive;
  };

  constructor(deps: OperatorSessions['deps']) {
    this.deps = deps;
  }

  /** A new session for a valid admin token; null for anything else (an agent key, a revoked or unknown token alike). */
  async signIn(presented: string): Promise<{ token: string; session: OperatorSession } | null> {
    const token = presented.trim();
    if (!token.startsWith(ADMIN_TOKEN_PREFIX) || token.length > 512 || !/^[\x21-\x7e]+$/.test(token)) return null;
    const principal = await this.deps.authenticate(token);
    if (!principal) return null;
    const now = this.deps.clock.now();
    const sessionToken = newSecret(OPERATOR_SESSION_PREFIX);
    const session = {
      tokenHash: sha256Hex(sessionToken),
      adminTokenId: principal.tokenId,
      csrfToken: randomBase62(32),
    };
    const expiresAt = new Date(now.getTime() + OPERATOR_SESSION_TTL_MS).toISOString();
    const row = { token_hash: session.tokenHash, admin_token_id: principal.tokenId, csrf_token: session.csrfToken };
    await this.deps.repo.insertSession(
      { ...row, created_at: now.toISOString(), expires_at: expiresAt },
      now.toISOString(),
    );
    return { token: sessionToken, session };
  }

  /** The live session behind a cookie value, or null (unknown, expired, its admin token revoked). */
  async session(token: string | undefined): Promise<OperatorSession | null> {
    if (!token || !token.startsWith(OPERATOR_SESSION_PREFIX) || token.length > 64) return null;
    const row = await this.deps.repo.findSession(sha256Hex(token), this.deps.clock.now().toISOString());
    if (!row) return null;
    if (row.admin_token_id !== BOOTSTRAP_ID && !(await this.deps.tokenActive(row.admin_token_id))) return null;
    return { tokenHash: row.token_hash, adminTokenId: row.admin_token_id, csrfToken: row.csrf_token };
  }

  async signOut(session: OperatorSession): Promise<void> {
    await this.deps.repo.deleteSession(session.tokenHash);
  }
}
