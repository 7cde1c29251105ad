// Deposits to a seller pay_to address (contract §7, issue 14), reported by the payment processor's
// signed webhook (deposits-routes.ts) and applied once per processor deposit id: credited to the
// organization that verified the sending wallet (completing its open x402 quote of exactly that
// amount, else as a top_up), or held for the operator, who assigns it to an organization.
import type { Static } from 'typebox';
import type { RecordOperatorAction } from '../admin/audit.ts';
import type { AdminPrincipal } from '../../operations/principals.ts';
import { createHmac } from 'node:crypto';
import { transact } from '../../db/transaction.ts';
import type { Executor } from '../../db/schema.ts';
import { ApiError, invalidField, notFound, orNotFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { pageById, type PageQuery } from '../../lib/pagination.ts';
import { constantTimeEqualHex } from '../../lib/secrets.ts';
import { micros, usdString } from './money.ts';
import type { DepositReport as DepositReportBody } from './deposits-operations.ts';
import { canonicalAddress } from './networks.ts';
import type { OrganizationFinder } from './operator.ts';
import type { X402DepositsTable } from './tables.ts';
import { x402TopUp, type RailDeps } from './payments.ts';

/** A signature older or newer than this (by the injected clock) is refused: no replays. */
export const DEPOSIT_TOLERANCE_SECONDS = 300;

export type DepositReport = Static<typeof DepositReportBody>;

export type DepositView = ReturnType<typeof depositView>;

export function depositView(row: X402DepositsTable) {
  return {
    id: row.id,
    deposit_id: row.deposit_id,
    network: row.network,
    from: row.from_address,
    to: row.to_address,
    amount_usd: usdString(micros(row.amount_micros)),
    transaction: row.transaction,
    status: row.status,
    organization_id: row.organization_id,
    payment_id: row.payment_id,
    created_at: row.created_at,
    credited_at: row.credited_at,
  };
}

const unsigned = (message: string) => invalidField('X-Cellgate-Signature', 'invalid_signature', message);

export class DepositsService {
  private readonly deps: RailDeps & {
    secret: string | null;
    audit: RecordOperatorAction;
    organizations: OrganizationFinder;
  };

  constructor(deps: DepositsService['deps']) {
    this.deps = deps;
  }

  /** Checks the webhook's signature over the raw body (400 when missing, forged or stale). */
  verify(header: string | undefined, rawBody: string): void {
    if (!this.deps.secret)
      throw new ApiError('not_found', 'The deposit webhook is not configured here (CELLGATE_X402_DEPOSIT_SECRET).');
    const parts = new Map((header ?? '').split(',').map((part) => part.trim().split('=', 2) as [string, string]));
    const timestamp = Number(parts.get('t'));
    const signature = parts.get('v1') ?? '';
    if (!Number.isInteger(timestamp) || !/^[0-9a-f]{64}$/.test(signature))
      throw unsigned('X-Cellgate-Signature must be t=<unix seconds>,v1=<hex HMAC-SHA256>.');
    const expected = createHmac('sha256', this.deps.secret).update(`${timestamp}.${rawBody}`).digest('hex');
    if (!constantTimeEqualHex(expected, signature)) throw unsigned('The signature does not match the body.');
    if (Math.abs(this.deps.clock.now().getTime() / 1000 - timestamp) > DEPOSIT_TOLERANCE_SECONDS)
      throw unsigned('The signature is too old or from the future.');
  }

  /** Applies a reported deposit once; the deposit as recorded (and whether this call recorded it). */
  async report(input: DepositReport): Promise<{ created: boolean; deposit: DepositView }> {
    const payTo = this.deps.offers.payToOf(input.network);
    if (!payTo) throw invalidField('network', 'not_configured', `The ${input.network} rail is not configured here.`);
    const from = canonicalAddress(input.network, input.from);
    if (!from) throw invalidField('from', 'invalid_format', `from is not a ${input.network} address.`);
    if (canonicalAddress(input.network, input.to) !== payTo)
      throw invalidField('to', 'not_ours', "to is not this deployment's pay_to address.");
    const amount = micros(input.amount);
    return transact(this.deps.repo.db, async (tx) => {
      const now = this.deps.clock.now().toISOString();
      const row: X402DepositsTable = {
        id: newId('dep', this.deps.clock),
        deposit_id: input.deposit_id,
        network: input.network,
        from_address: from,
        to_address: payTo,
        amount_micros: amount,
        transaction: input.transaction,
        status: 'held',
        organization_id: null,
        payment_id: null,
        created_at: now,
        credited_at: null,
      };
      if (!(await this.deps.repo.insertDeposit(tx, row)))
        return {
          created: false,
          deposit: depositView((await this.deps.repo.deposit(tx, input.deposit_id, 'deposit_id')) as X402DepositsTable),
        };
      // Only a wallet the organization proved control of: a claim alone would let anyone squat an address.
      const wallet = await this.deps.repo.wallet(tx, { network: input.network, address: from }, true);
      if (wallet) await this.credit(tx, row, wallet.organization_id);
      return { created: true, deposit: depositView((await this.deps.repo.deposit(tx, row.id)) as X402DepositsTable) };
    });
  }

  /** Credits a held deposit to an organization: its open quote of that amount, else a top_up. */
  private async credit(tx: Executor, deposit: X402DepositsTable, organizationId: string): Promise<void> {
    const now = this.deps.clock.now();
    const amount = micros(deposit.amount_micros);
    let payment = await this.deps.repo.openX402Payment(tx, organizationId, now.toISOString(), amount);
    if (!payment) {
      // Paid as it is opened: a top-up of what arrived.
      payment = x402TopUp(this.deps.clock, organizationId, amount);
      await this.deps.repo.insertPayment(payment, tx);
    }
    if (!(await this.deps.crediting.complete(tx, payment, now.toISOString())))
      throw new Error(`payment ${payment.id} was completed under a held deposit`);
    if (
      !(await this.deps.repo.creditDeposit(tx, deposit.id, {
        organization_id: organizationId,
        payment_id: payment.id,
        credited_at: now.toISOString(),
      }))
    ) {
      throw new ApiError('conflict', 'This deposit was credited meanwhile.');
    }
  }

  async list(status: X402DepositsTable['status'] | undefined, query: PageQuery) {
    const page = await pageById(query, (before, count) => this.deps.repo.listDeposits(status, before, count));
    return { deposits: page.items.map(depositView), next_cursor: page.next_cursor };
  }

  /** The operator credits a held deposit to an organization (404 unknown; 409 when not held). */
  async assign(
    id: string,
    organizationId: string,
    by: { actor: AdminPrincipal; reason?: string | null },
  ): Promise<DepositView> {
    if (!(await this.deps.organizations.find(organizationId))) throw notFound('organization');
    return transact(this.deps.repo.db, async (tx) => {
      const deposit = orNotFound(await this.deps.repo.deposit(tx, id), 'deposit');
      if (deposit.status !== 'held')
        throw new ApiError('conflict', `The deposit is already credited to ${deposit.organization_id}.`);
      await this.credit(tx, deposit, organizationId);
      await this.deps.audit(tx, {
        actor: by.actor,
        action: 'deposit.assign',
        targetType: 'deposit',
        targetId: id,
        reason: by.reason ?? null,
        detail: { organization_id: organizationId },
      });
      return depositView((await this.deps.repo.deposit(tx, id)) as X402DepositsTable);
    });
  }
}
