// Sign-up, verification, API keys and the credential lookup behind every agent request.
import { isUniqueViolation } from '../../db/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Mailer } from '../../lib/mailer.ts';
import { newEmailedCode } from '../../db/emailed-code.ts';
import { constantTimeEqualHex, displayPrefix, newSecret, sha256Hex } from '../../lib/secrets.ts';
import { ApiError, orNotFound } from '../../lib/errors.ts';
import type { AgentPrincipal, BearerResource } from '../../operations/principals.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import type { OrganizationsRepository } from './repository.ts';
import type { ApiKeysTable } from './tables.ts';
import { transact } from '../../db/transaction.ts';
import { Port } from '../../lib/ports.ts';

/** How long a resolved credential is trusted before it is read again (other processes' revokes). */
const CREDENTIAL_CACHE_MS = 5_000;
/** last_used_at is written at most this often per key. */
const TOUCH_INTERVAL_MS = 60_000;
/** Resolves an OAuth access token presented to a resource (the oauth module). */
export type AccessTokens = (token: string, resource: BearerResource) => Promise<AgentPrincipal | null>;

/** Active (unrevoked) API keys one organization may hold: keys are free to mint, and each is a credential to guard. */
export const MAX_ACTIVE_KEYS = 100;
export const API_KEY_PREFIX = 'cg_live_';
export const ACCESS_TOKEN_PREFIX = 'cg_at_';
export const ALL_SCOPES = [
  'cells:read',
  'cells:write',
  'messages:read',
  'messages:send',
  'events:read',
  'webhooks:write',
  'billing:read',
  'billing:write',
  'usage:read',
];

const alreadyRegistered = () =>
  new ApiError('conflict', 'An organization with this email is already registered and verified.');

export function keyView(row: Pick<ApiKeysTable, 'id' | 'name' | 'prefix' | 'created_at' | 'last_used_at'>) {
  return { id: row.id, name: row.name, prefix: row.prefix, created_at: row.created_at, last_used_at: row.last_used_at };
}

// Two first sign-ups racing for one email: the loser retries once and finds the winner's row.
async function retryOnUniqueViolation<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return run();
  }
}

export class OrganizationsService {
  private readonly repo: OrganizationsRepository;
  private readonly clock: Clock;
  private readonly mailer: Mailer;
  private readonly credentials = new Map<string, { principal: AgentPrincipal; until: number; touchedMs: number }>();
  /** Wired by the composition root: the oauth module resolves access tokens. */
  readonly ports = { accessTokens: new Port<AccessTokens>('organizations', 'accessTokens') };

  constructor(deps: { repo: OrganizationsRepository; clock: Clock; mailer: Mailer }) {
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.mailer = deps.mailer;
  }

  /** The organization signed up with this (normalized) email, if any: the console's sign-in asks. */
  findByEmail(email: string) {
    return this.repo.findByEmail(this.repo.db, email);
  }

  /** The organization, if any: the admin's organization pages ask. */
  find(id: string) {
    return this.repo.findById(id);
  }

  private newKey(organizationId: string, name: string | null, now: string) {
    const secret = newSecret(API_KEY_PREFIX);
    const row: ApiKeysTable = {
      id: newId('key', this.clock),
      organization_id: organizationId,
      name,
      prefix: displayPrefix(secret),
      key_hash: sha256Hex(secret),
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    };
    return { secret, row };
  }

  async signUp(input: { email: string; organization_name?: string }) {
    const email = input.email.trim().toLowerCase();
    const now = this.clock.now();
    const iso = now.toISOString();
    const emailed = newEmailedCode(now);
    const { code } = emailed;

    // The mail goes out before anything is written: when it fails (503), the database is as it
    // was (a repeat sign-up keeps the earlier key and code) and the client simply retries.
    const before = await this.repo.findByEmail(this.repo.db, email);
    if (before && before.status !== 'unverified') throw alreadyRegistered();
    try {
      await this.mailer.send({
        to: email,
        subject: `Your Cellgate verification code: ${code}`,
        text: `Your Cellgate verification code is ${code}.\n\nIt expires in 10 minutes. Verify with POST /v1/agent/verify {"code": "${code}"} using the API key you received at sign-up.\n`,
      });
    } catch {
      throw new ApiError(
        'unavailable',
        'The verification email could not be sent; nothing was changed, please retry.',
        { headers: { 'Retry-After': '30' } },
      );
    }
    const { organizationId, secret } = await retryOnUniqueViolation(() =>
      transact(this.repo.db, async (tx) => {
        const existing = await this.repo.findByEmail(tx, email);
        if (existing && existing.status !== 'unverified') throw alreadyRegistered();
        const organizationId = existing?.id ?? newId('org', this.clock, now);
        if (existing) {
          // Signing up again before verifying: the earlier key and code stop working.
          await this.repo.revokeAllKeys(tx, organizationId, iso);
        } else {
          await this.repo.insertOrganization(tx, {
            id: organizationId,
            name: input.organization_name ?? email,
            email,
            status: 'unverified',
            created_at: iso,
            updated_at: iso,
            verified_at: null,
          });
        }
        const key = this.newKey(organizationId, 'sign-up', iso);
        await this.repo.insertKey(tx, key.row);
        await this.repo.codes.replace(tx, emailed.rowFor(organizationId));
        return { organizationId, secret: key.secret };
      }),
    );
    this.forgetOrganization(organizationId);
    return {
      organization_id: organizationId,
      api_key: secret,
      status: 'unverified' as const,
      verification: { channel: 'email' as const, sent_to: email, expires_at: emailed.expiresAt },
    };
  }

  async verify(agent: AgentPrincipal, code: string) {
    const organizationId = agent.organizationId;
    if (agent.organizationStatus !== 'unverified')
      throw new ApiError('conflict', 'The organization is already verified.');
    const check = await this.repo.codes.check(organizationId, code, this.clock.now());
    if (check === 'spent')
      throw new ApiError(
        'code_expired',
        'This code can no longer be used; sign up again with the same email to get a new one.',
      );
    if (check !== 'ok')
      throw new ApiError(
        'invalid_code',
        check === 'expired' ? 'The code has expired; sign up again to get a new one.' : 'The code is not correct.',
      );
    await this.confirmEmail(organizationId);
    return { organization_id: organizationId, status: 'active' as const };
  }

  /**
   * Verifies an unverified organization whose email was proven: its sign-up code (verify), or the
   * console's sign-in code mailed to the same address. The sign-up code stops working.
   */
  async confirmEmail(organizationId: string): Promise<void> {
    const now = this.clock.now().toISOString();
    await transact(this.repo.db, async (tx) => {
      await this.repo.setStatus(tx, organizationId, 'active', now);
      await this.repo.codes.delete(tx, organizationId);
    });
    this.forgetOrganization(organizationId);
  }

  /**
   * The principal behind an API key or an OAuth access token presented to `resource`, or null
   * when unknown, revoked or expired (or a token of another resource). Resolved keys are kept in
   * memory for a few seconds (keyed by the presented key, so a hit costs no hashing); access
   * tokens are read on every request, so their revocation takes effect at once.
   */
  async authenticate(secret: string, resource: BearerResource = 'v1'): Promise<AgentPrincipal | null> {
    if (secret.startsWith(ACCESS_TOKEN_PREFIX)) return this.ports.accessTokens.value(secret, resource);
    if (!secret.startsWith(API_KEY_PREFIX)) return null;
    const nowMs = this.clock.now().getTime();
    let entry = this.credentials.get(secret);
    if (!entry || entry.until <= nowMs) {
      const hash = sha256Hex(secret);
      const row = await this.repo.findCredential(hash);
      if (!row || !constantTimeEqualHex(row.key_hash, hash)) return null;
      entry = {
        principal: {
          organizationId: row.organization_id,
          organizationName: row.organization_name,
          organizationStatus: row.organization_status,
          credentialType: 'api_key',
          credentialId: row.key_id,
          key: { id: row.key_id, prefix: row.prefix, created_at: row.created_at, last_used_at: row.last_used_at },
          scopes: ALL_SCOPES,
        },
        until: nowMs + CREDENTIAL_CACHE_MS,
        touchedMs: row.last_used_at ? Date.parse(row.last_used_at) : 0,
      };
      if (this.credentials.size > 10_000) this.credentials.clear();
      this.credentials.set(secret, entry);
    }
    if (nowMs - entry.touchedMs >= TOUCH_INTERVAL_MS) {
      const now = new Date(nowMs).toISOString();
      entry.touchedMs = nowMs;
      entry.principal.key = { ...entry.principal.key, last_used_at: now };
      await this.repo.touchKey(entry.principal.key.id, now);
    }
    return entry.principal;
  }

  whoami(agent: AgentPrincipal) {
    return {
      organization_id: agent.organizationId,
      organization_name: agent.organizationName,
      status: agent.organizationStatus,
      key: agent.key,
      credential_type: agent.credentialType,
      scopes: agent.scopes,
      ...(agent.client ? { client: agent.client } : {}),
    };
  }

  async listKeys(organizationId: string, query: PageQuery) {
    const result = await pageById(query, (before, count) => this.repo.listActiveKeys(organizationId, before, count));
    return { keys: result.items.map(keyView), next_cursor: result.next_cursor };
  }

  async createKey(organizationId: string, name: string | null) {
    const now = this.clock.now().toISOString();
    const key = this.newKey(organizationId, name, now);
    await transact(this.repo.db, async (tx) => {
      // Creates of one organization count and insert one at a time, so two at 99 never make 101.
      await this.repo.lockOrganization(tx, organizationId);
      if ((await this.repo.countActiveKeys(tx, organizationId)) >= MAX_ACTIVE_KEYS)
        throw new ApiError(
          'conflict',
          `The organization already holds ${MAX_ACTIVE_KEYS} active API keys, the most it may have; revoke one (DELETE /v1/auth/keys/{key_id}) before creating another.`,
        );
      await this.repo.insertKey(tx, key.row);
    });
    return { ...keyView(key.row), api_key: key.secret };
  }

  /** One active key of the organization (the console's revoke confirmation); 404 otherwise. */
  async activeKey(organizationId: string, keyId: string) {
    const key = orNotFound(await this.repo.findActiveKey(organizationId, keyId), 'API key');
    return keyView(key);
  }

  async revokeKey(organizationId: string, keyId: string): Promise<void> {
    await this.activeKey(organizationId, keyId);
    const now = this.clock.now().toISOString();
    if ((await this.repo.revokeKeyUnlessLast(this.repo.db, organizationId, keyId, now)) === 0)
      throw new ApiError(
        'conflict',
        "This is the organization's last active API key; create another before revoking it.",
      );
    this.forgetOrganization(organizationId);
  }

  /** Drops cached credentials of an organization after its keys or status change here. */
  private forgetOrganization(organizationId: string): void {
    for (const [key, entry] of this.credentials)
      if (entry.principal.organizationId === organizationId) this.credentials.delete(key);
  }
}
