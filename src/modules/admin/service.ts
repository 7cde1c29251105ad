// Admin tokens (bootstrap token from the environment, or created with the CLI) and the dev outbox.
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Mail } from '../../lib/mailer.ts';
import { constantTimeEqualHex, displayPrefix, newSecret, sha256Hex } from '../../lib/secrets.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { AdminPrincipal } from '../../operations/principals.ts';
import type { AdminRepository } from './repository.ts';

export const ADMIN_TOKEN_PREFIX = 'cg_adm_';

export class AdminService {
  private readonly repo: AdminRepository;
  private readonly clock: Clock;
  private readonly bootstrapHash: string | null;

  constructor(deps: { repo: AdminRepository; clock: Clock; bootstrapToken: string | null }) {
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.bootstrapHash = deps.bootstrapToken ? sha256Hex(deps.bootstrapToken) : null;
  }

  async authenticate(token: string): Promise<AdminPrincipal | null> {
    const hash = sha256Hex(token);
    if (this.bootstrapHash && constantTimeEqualHex(this.bootstrapHash, hash)) return { tokenId: 'adm_bootstrap' };
    const row = await this.repo.findActiveToken(hash);
    return row && constantTimeEqualHex(row.token_hash, hash) ? { tokenId: row.id } : null;
  }

  /** Whether a created admin token is still unrevoked (the bootstrap token has no row: callers decide it). */
  tokenActive(id: string): Promise<boolean> {
    return this.repo.isTokenActive(id);
  }

  async createToken(label: string | null): Promise<{ id: string; token: string }> {
    const token = newSecret(ADMIN_TOKEN_PREFIX);
    const now = this.clock.now();
    const id = newId('adm', this.clock, now);
    await this.repo.insertToken({
      id,
      label,
      prefix: displayPrefix(token),
      token_hash: sha256Hex(token),
      created_at: now.toISOString(),
      revoked_at: null,
    });
    return { id, token };
  }

  async keepMail(mail: Mail): Promise<void> {
    const now = this.clock.now();
    await this.repo.insertMail({
      id: newId('mail', this.clock, now),
      to_address: mail.to,
      subject: mail.subject,
      text: mail.text,
      created_at: now.toISOString(),
    });
  }

  /** The newest kept mail to this address (the console's sign-up and sign-in pages on a loopback base URL). */
  async latestMailTo(to: string): Promise<Mail | null> {
    const [row] = (await this.listMail(to, { limit: 1 })).messages;
    return row ? { to: row.to, subject: row.subject, text: row.text } : null;
  }

  async listMail(to: string | undefined, query: PageQuery) {
    const result = await pageById(query, (before, count) => this.repo.listMail(to?.toLowerCase(), before, count));
    return {
      messages: result.items.map((row) => ({
        id: row.id,
        to: row.to_address,
        subject: row.subject,
        text: row.text,
        created_at: row.created_at,
      })),
      next_cursor: result.next_cursor,
    };
  }
}
