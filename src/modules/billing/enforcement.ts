// Billing enforcement (contract §7): what a cell create and a send must pay, checked and debited
// in the transaction of the action itself, and the refund of a message that never went out.
// With billing off nothing is refused or debited, but usage records are still written.
import type { Executor } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ApiError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { usdString } from './money.ts';
import type { ChargesPort, SendCharges } from '../messages/ports.ts';
import type { Prices } from './pricing.ts';
import type { BillingRepository } from './repository.ts';
import type { BillingService } from './service.ts';
import type { BillingAccount, LedgerEntriesTable, UsageRecordsTable, UsageType } from './tables.ts';

/** An outbound message as billing prices it. */
export interface BillableMessage {
  id: string;
  organization_id: string;
  cell_id: string;
  segments: number;
  /** The media_urls column: "[]" for a text. */
  media_urls: string;
  created_at: string;
}


type AccountRow = Pick<BillingAccount, 'organization_id' | 'state' | 'tier' | 'current_period_end' | 'prepaid_balance_micros'>;

const messageReference = (messageId: string) => `message:${messageId}`;

export class BillingEnforcement implements ChargesPort {
  private readonly repo: BillingRepository;
  private readonly billing: BillingService;
  private readonly clock: Clock;
  private readonly postgres: boolean;

  constructor(deps: { repo: BillingRepository; billing: BillingService; clock: Clock; postgres: boolean }) {
    this.repo = deps.repo;
    this.billing = deps.billing;
    this.clock = deps.clock;
    this.postgres = deps.postgres;
  }

  private get prices(): Prices {
    return this.billing.prices;
  }

  /** What one message costs and how usage counts it. */
  private priceOf(message: BillableMessage): { type: UsageType; quantity: number; unit: number; micros: number } {
    if (message.media_urls !== '[]') return { type: 'mms', quantity: 1, unit: this.prices.mmsMicros, micros: this.prices.mmsMicros };
    const unit = this.prices.smsSegmentMicros;
    return { type: 'sms', quantity: message.segments, unit, micros: unit * message.segments };
  }

  /** The usage record of a message; `at` (the clock's now) mints its id, one Date per batch. */
  private usageOf(message: BillableMessage, at: Date): UsageRecordsTable {
    const price = this.priceOf(message);
    return {
      id: newId('usg', this.clock, at),
      organization_id: message.organization_id,
      cell_id: message.cell_id,
      message_id: message.id,
      type: price.type,
      quantity: price.quantity,
      unit_price_micros: price.unit,
      amount_micros: price.micros,
      created_at: message.created_at,
    };
  }

  /** The 402 that blocks every paid action of an organization in this state, or null. */
  private async blocked(ex: Executor, organizationId: string, account: AccountRow | undefined, tier?: string): Promise<ApiError | null> {
    const state = account?.state ?? 'inactive';
    if (state === 'inactive') {
      const setup = this.billing.tierOf(tier);
      return this.billing.paymentRequired(`No paid tier yet: pay the setup of ${setup.name} to start.`, 'setup', setup.priceMicros, { tier: setup.name });
    }
    if (state === 'suspended' && account) {
      const due = this.billing.amountDue(account, await this.billing.activeCells(organizationId, ex));
      return this.billing.paymentRequired('The organization is suspended for an unpaid period: pay the amount due to reinstate it.', 'reinstate', due, account.tier ? { tier: account.tier } : {});
    }
    return null;
  }

  /** Opens the billing of a batch of sends, in its transaction (one read of the accounts). */
  async sends(tx: Executor, organizationIds: readonly string[]): Promise<SendCharges> {
    if (!this.billing.enabled) {
      return {
        refusal: () => null,
        charge: async (messages) => {
          const at = this.clock.now();
          await this.repo.insertUsage(tx, messages.map((message) => this.usageOf(message, at)));
          return messages.map(() => null);
        },
      };
    }
    const ids = [...new Set(organizationIds)];
    const accounts = new Map((await this.repo.accountsAmong(tx, ids)).map((row) => [row.organization_id, row]));
    const refusals = new Map<string, ApiError | null>();
    for (const id of ids) refusals.set(id, await this.blocked(tx, id, accounts.get(id)));
    return {
      refusal: (organizationId) => refusals.get(organizationId) ?? null,
      charge: (messages) => this.charge(tx, messages, accounts),
    };
  }

  /**
   * Takes the price of each message from its organization's balance, in order, while it covers
   * it; the rest are refused with a 402 top_up. One conditional update per organization: if a
   * concurrent transaction moved the balance meanwhile, the balance is read again and the split
   * redone.
   */
  private async charge(tx: Executor, messages: readonly BillableMessage[], accounts: Map<string, AccountRow>): Promise<(ApiError | null)[]> {
    const results: (ApiError | null)[] = messages.map(() => null);
    const byOrganization = Map.groupBy(messages.map((message, i) => ({ message, i })), ({ message }) => message.organization_id);
    const ledger: Omit<LedgerEntriesTable, 'id'>[] = [];
    const usage: UsageRecordsTable[] = [];
    const at = this.clock.now();
    for (const [organizationId, entries] of byOrganization) {
      let balance = Number(accounts.get(organizationId)?.prepaid_balance_micros ?? 0);
      for (;;) {
        let left = balance;
        let total = 0;
        const accepted = new Set<number>();
        for (const { message, i } of entries) {
          const { micros } = this.priceOf(message);
          if (micros <= left) {
            left -= micros;
            total += micros;
            accepted.add(i);
          } else {
            const amount = Math.max(this.prices.minAmountMicros, micros - left);
            results[i] = this.billing.paymentRequired(`The prepaid balance cannot cover this message (${usdString(micros)}): top up.`, 'top_up', amount);
          }
        }
        if (total === 0 || (await this.repo.debitIfCovered(tx, organizationId, total))) {
          for (const { message, i } of entries) {
            if (!accepted.has(i)) continue;
            const record = this.usageOf(message, at);
            usage.push(record);
            ledger.push({ organization_id: organizationId, kind: 'message', amount_micros: -Number(record.amount_micros), reference: messageReference(message.id), description: `${record.type} x${record.quantity}`, created_at: message.created_at });
          }
          break;
        }
        balance = await this.repo.balance(tx, organizationId);
        for (const { i } of entries) results[i] = null;
      }
    }
    await this.repo.insertLedgerRows(tx, ledger);
    await this.repo.insertUsage(tx, usage);
    return results;
  }

  /**
   * Refunds messages that failed or were canceled before they were sent, in the transaction that
   * settles them: a ledger credit referencing each charged one (once: its reference is unique),
   * and its usage record goes, since the message is no longer billed.
   */
  async refund(tx: Executor, messageIds: readonly string[]): Promise<void> {
    if (messageIds.length === 0) return;
    const now = this.clock.now().toISOString();
    const debits = await this.repo.ledgerByReference(tx, messageIds.map(messageReference));
    for (const debit of debits) {
      await this.repo.appendLedger(tx, {
        organization_id: debit.organization_id,
        kind: 'refund',
        amount_micros: -Number(debit.amount_micros),
        reference: `refund:${debit.reference}`,
        description: 'not sent',
        created_at: now,
      });
    }
    await this.repo.deleteMessageUsage(tx, messageIds);
  }

  /**
   * Admits a cell create, in its transaction: an inactive organization pays the setup of `tier`
   * (starter by default), a suspended one the amount due; past the tier's included cells a paid
   * create_cell credit is consumed (with its cell-month usage record), or the create is 402
   * create_cell. The account is locked on PostgreSQL, so concurrent creates count one by one.
   */
  async admitCell(tx: Executor, organizationId: string, cellId: string, tier?: string): Promise<void> {
    if (tier !== undefined) this.billing.tierOf(tier);
    if (!this.billing.enabled) return;
    const now = this.clock.now().toISOString();
    const account = await this.repo.lockAccount(tx, organizationId, now, this.postgres);
    const refusal = await this.blocked(tx, organizationId, account, tier);
    if (refusal) throw refusal;
    const included = this.billing.tierOf(account.tier).includedCells;
    if ((await this.billing.activeCells(organizationId, tx)) < included) return;
    const cellPrice = this.prices.extraCellMicros;
    if (!(await this.repo.consumeCellCredit(tx, organizationId))) {
      throw this.billing.paymentRequired(`The ${account.tier} tier's ${included} included cell(s) are in use: pay for one more cell.`, 'create_cell', cellPrice);
    }
    await this.repo.insertUsage(tx, [
      { id: newId('usg', this.clock), organization_id: organizationId, cell_id: cellId, message_id: null, type: 'cell_month', quantity: 1, unit_price_micros: cellPrice, amount_micros: cellPrice, created_at: now },
    ]);
  }
}
