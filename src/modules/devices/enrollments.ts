// Enrollment of a phone running the SMSGate app (contract §13): a single-use private token and a
// 6-digit code (10 minutes), kept as hashes only; the app signs in with either and becomes a
// device with one line per SIM card, its own device token and the key it signs its webhooks with.
import type { Clock } from '../../lib/clock.ts';
import { ApiError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { newSecret, randomBase62, sha256Hex, sixDigitCode } from '../../lib/secrets.ts';
import { transact } from '../../db/transaction.ts';
import type { EnrollmentsRepository } from './enrollments-repository.ts';
import type { Executor } from '../../db/schema.ts';
import { recorderOf, type OperatorBy, type RecordOperatorAction } from '../admin/audit.ts';
import { unlessTaken } from '../../db/errors.ts';
import { DEVICE_KEY_PREFIX, numberTaken, type DeviceSettings, type DevicesService, type SimLine } from './service.ts';
import type { DeviceEnrollmentsTable } from './tables.ts';

export const ENROLLMENT_TOKEN_PREFIX = 'cg_enr_';
export const ENROLLMENT_TTL_MS = 24 * 60 * 60 * 1000;
export const CODE_TTL_MS = 10 * 60 * 1000;
/** The SMSGate app's protocol root under the server's base URL. */
export const MOBILE_PATH = '/mobile/v1';

/** How the app signs in: its private token, or a code. */
export type EnrollmentCredential = { kind: 'token'; token: string } | { kind: 'code'; code: string };

const refused = () =>
  new ApiError('unauthenticated', 'The enrollment is unknown, already used or expired: make a new one.');

export function enrollmentView(row: DeviceEnrollmentsTable) {
  return {
    id: row.id,
    label: row.label,
    send_rate_per_minute: row.send_rate_per_minute,
    daily_send_limit: row.daily_send_limit,
    expires_at: row.expires_at,
    code_expires_at: row.code_expires_at,
    created_at: row.created_at,
  };
}

type EnrollmentsDeps = {
  repo: EnrollmentsRepository;
  devices: DevicesService;
  clock: Clock;
  baseUrl: string;
  audit: RecordOperatorAction;
};

export class EnrollmentsService {
  private readonly deps: EnrollmentsDeps;

  constructor(deps: EnrollmentsDeps) {
    this.deps = deps;
    this.record = recorderOf(deps.audit, 'enrollment');
  }

  /** An operator's action on an enrollment, in the operator audit log (in the action's transaction). */
  private readonly record: ReturnType<typeof recorderOf>;

  async create(input: DeviceSettings, by: OperatorBy) {
    const now = this.deps.clock.now();
    const token = newSecret(ENROLLMENT_TOKEN_PREFIX);
    const code = await this.freeCode(now.toISOString());
    const row: DeviceEnrollmentsTable = {
      id: newId('enr', this.deps.clock, now),
      token_hash: sha256Hex(token),
      code_hash: sha256Hex(code),
      code_expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
      label: input.label ?? null,
      send_rate_per_minute: input.send_rate_per_minute ?? null,
      daily_send_limit: input.daily_send_limit ?? null,
      created_by: by.actor.tokenId,
      expires_at: new Date(now.getTime() + ENROLLMENT_TTL_MS).toISOString(),
      used_at: null,
      device_id: null,
      created_at: now.toISOString(),
    };
    await transact(this.deps.repo.db, async (tx) => {
      await this.deps.repo.insert(tx, row);
      await this.record(tx, by, 'enrollment.create', row.id, {
        label: row.label,
        send_rate_per_minute: row.send_rate_per_minute,
        daily_send_limit: row.daily_send_limit,
      });
    });
    return { ...enrollmentView(row), token, code, server_url: `${this.deps.baseUrl}${MOBILE_PATH}` };
  }

  /** A code no other valid enrollment has now (a code names one enrollment while it is valid). */
  private async freeCode(now: string): Promise<string> {
    for (;;) {
      const code = sixDigitCode();
      if ((await this.deps.repo.byCode(this.deps.repo.db, sha256Hex(code), now)).length === 0) return code;
    }
  }

  async list(query: PageQuery) {
    const now = this.deps.clock.now().toISOString();
    const page = await pageById(query, (before, count) => this.deps.repo.pending(now, before, count));
    return { enrollments: page.items.map(enrollmentView), next_cursor: page.next_cursor };
  }

  async revoke(id: string, by: OperatorBy): Promise<void> {
    await transact(this.deps.repo.db, async (tx) => {
      if ((await this.deps.repo.revoke(tx, id)) === 0) throw notFound('enrollment');
      await this.record(tx, by, 'enrollment.revoke', id);
    });
  }

  /**
   * Refuses (401) a credential that names no valid enrollment now: checked before the sign-in's
   * body is read, so a caller without one learns nothing of the body's schema. register()
   * checks again in its transaction, where two sign-ins with one enrollment are told apart.
   */
  async verify(credential: EnrollmentCredential): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    await this.find(this.deps.repo.db, credential, now);
  }

  /**
   * The app signs in: spends the enrollment and adds the phone (one line per SIM card). 401 for an
   * unknown, spent or expired enrollment (or code). The app redacts its SIM numbers (GatewayService.kt
   * redact()), so lines usually come without one: they carry no cell until the operator sets their
   * numbers (PATCH /v1/admin/devices/{id}). A full number another phone or line carries is a 409.
   */
  async register(
    credential: EnrollmentCredential,
    body: { name: string; pushToken?: string | null; sims: readonly SimLine[] },
  ) {
    const token = newSecret(DEVICE_KEY_PREFIX);
    const now = this.deps.clock.now().toISOString();
    const device = await transact(this.deps.repo.db, async (tx) => {
      const enrollment = await this.find(tx, credential, now);
      const settings = {
        label: enrollment.label ?? body.name,
        send_rate_per_minute: enrollment.send_rate_per_minute ?? undefined,
        daily_send_limit: enrollment.daily_send_limit ?? undefined,
      };
      const extra = { token, signingKey: randomBase62(32), pushToken: body.pushToken ?? null };
      const by = { actor: { tokenId: enrollment.created_by } };
      // Two SIM cards with one number, or a concurrent sign-in taking it.
      const added = await unlessTaken(this.deps.devices.insertEnrolled(tx, settings, body.sims, extra, by), () =>
        numberTaken('simCards', 'A SIM card number'),
      );
      // Conditional: of two sign-ins with one enrollment, one spends it and the other rolls back.
      if ((await this.deps.repo.spend(tx, enrollment.id, added.id, now)) === 0) throw refused();
      return added;
    });
    await this.deps.devices.afterAdded();
    // The app keeps `login`/`password` for the cloud's user accounts; a private server has none.
    return { id: device.id, token, login: device.id, password: null };
  }

  /** The enrollment the credential names, unused and unexpired at `now`; 401 otherwise. */
  private async find(ex: Executor, credential: EnrollmentCredential, now: string) {
    const { repo } = this.deps;
    const enrollment =
      credential.kind === 'token'
        ? credential.token.startsWith(ENROLLMENT_TOKEN_PREFIX)
          ? await repo.byToken(ex, sha256Hex(credential.token))
          : undefined
        : /^[0-9]{6}$/.test(credential.code)
          ? (await repo.byCode(ex, sha256Hex(credential.code), now))[0]
          : undefined;
    if (!enrollment || enrollment.used_at !== null || enrollment.expires_at <= now) throw refused();
    return enrollment;
  }

  /** Deletes enrollments a day past their expiry; how many. */
  prune(): Promise<number> {
    return this.deps.repo.prune(new Date(this.deps.clock.now().getTime() - ENROLLMENT_TTL_MS).toISOString());
  }
}
