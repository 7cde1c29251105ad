// Billing enforcement (contract §7): what a cell create and a send must pay, checked and debited
// in the transaction of the action itself, and the refund of a message that never went out. The
// checks and their order are lifecycle.ts's policies; this reads their facts and turns a refusal
// into the 402 of its intent. With billing off nothing is refused or debited, but usage records
// are still written.
import type { Static } from 'typebox';
import type { Executor } from '../../db/schema.ts';
import { ApiError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { ChargesPort, SendCharges } from '../messages/ports.ts';
import type { AccountDeps } from './accounts.ts';
import {
  firstRefusal,
  NO_ACCOUNT,
  POLICIES,
  TIER_FULL,
  topUpAmount,
  type RefusalCheck,
  type Standing,
} from './lifecycle.ts';
import { dollars, micros, minus, negated, plus, times, usdString, ZERO, type Micros } from './money.ts';
import type { PaymentDetails, PaymentOffers } from './offers.ts';
import type { ChargeQuote as ChargeQuoteSchema } from './operations.ts';
import { amountDue, tierOf, type Prices } from './pricing.ts';
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

type AccountRow = Pick<
  BillingAccount,
  'organization_id' | 'state' | 'tier' | 'current_period_end' | 'prepaid_balance_micros'
>;

/** What a paid action would take now, without taking it (an MCP paid tool called without `confirm: true`). */
export type ChargeQuote = Static<typeof ChargeQuoteSchema>;

const quoteOf = (amount: Micros, covered_by: ChargeQuote['covered_by'], detail: string): ChargeQuote => ({
  amount_usd: usdString(amount),
  currency: 'USD',
  covered_by,
  detail,
  payment: null,
});

const paymentQuote = (refusal: ApiError): ChargeQuote => {
  const payment = refusal.extensions?.payment as PaymentDetails;
  return { amount_usd: payment.amount_usd, currency: 'USD', covered_by: 'payment', detail: refusal.message, payment };
};

const BILLING_OFF = quoteOf(ZERO, 'billing_off', 'Billing is off on this deployment: nothing is charged.');

const messageReference = (messageId: string) => `message:${messageId}`;

/** Said by a 402 that pays for a cell while no phone is free (the console's create-cell page says it too). */
export const NO_PHONE_FREE =
  'No phone is free now: once paid, the cell is created but waits in provisioning (no number, no sends) until the operator adds a phone; the money is not returned meanwhile.';

export class BillingEnforcement implements ChargesPort {
  private readonly deps: AccountDeps & { offers: PaymentOffers };

  constructor(deps: BillingEnforcement['deps']) {
    this.deps = deps;
  }

  private get prices(): Prices {
    return this.deps.config.prices;
  }

  /** What one message costs and how usage counts it. */
  private priceOf(message: BillableMessage): { type: UsageType; quantity: number; unit: Micros; amount: Micros } {
    if (message.media_urls !== '[]')
      return { type: 'mms', quantity: 1, unit: this.prices.mmsMicros, amount: this.prices.mmsMicros };
    const unit = this.prices.smsSegmentMicros;
    return { type: 'sms', quantity: message.segments, unit, amount: times(unit, message.segments) };
  }

  /**
   * The usage record of a message, dated when it is charged (`at`, the clock's now, one Date per
   * batch): a scheduled message is charged at its send_at, and its usage belongs to that day.
   */
  private usageOf(message: BillableMessage, at: Date): UsageRecordsTable & { amount_micros: Micros } {
    const price = this.priceOf(message);
    return {
      id: newId('usg', this.deps.clock, at),
      organization_id: message.organization_id,
      cell_id: message.cell_id,
      message_id: message.id,
      type: price.type,
      quantity: price.quantity,
      unit_price_micros: price.unit,
      amount_micros: price.amount,
      created_at: at.toISOString(),
    };
  }

  /**
   * The 402 of a refusal check, with what lifts it: the setup of `tier` (starter by default), the
   * amount due, one cell.
   */
  private async refusal(
    ex: Executor,
    organizationId: string,
    check: Pick<RefusalCheck<unknown>, 'name' | 'intent'>,
    account: Standing,
    tier?: string,
  ): Promise<ApiError> {
    switch (check.intent) {
      case 'setup': {
        const setup = tierOf(this.prices, tier);
        return this.deps.offers.paymentRequired(
          `No paid tier yet: pay the setup of ${setup.name} to start.`,
          'setup',
          setup.priceMicros,
          { tier: setup.name },
        );
      }
      case 'reinstate': {
        const due = amountDue(this.prices, account, await this.deps.accounts.activeCells(organizationId, ex));
        return this.deps.offers.paymentRequired(
          'The organization is suspended for an unpaid period: pay the amount due to reinstate it.',
          'reinstate',
          due,
          account.tier ? { tier: account.tier } : {},
        );
      }
      case 'create_cell': {
        const included = tierOf(this.prices, account.tier).includedCells;
        return this.deps.offers.paymentRequired(
          `The ${account.tier} tier's ${included} included cell(s) are in use: pay for one more cell.`,
          'create_cell',
          this.prices.extraCellMicros,
        );
      }
      default:
        throw new Error(`No 402 for the ${check.name} check here`);
    }
  }

  /** The accounts of these organizations, and the 402 that refuses every send of each (lifecycle POLICIES.send) or null. */
  private async standings(ex: Executor, organizationIds: readonly string[]) {
    const ids = [...new Set(organizationIds)];
    const accounts = new Map((await this.deps.repo.accountsAmong(ex, ids)).map((row) => [row.organization_id, row]));
    const refusals = new Map<string, ApiError | null>();
    for (const id of ids) {
      const standing = accounts.get(id) ?? NO_ACCOUNT;
      const check = firstRefusal(POLICIES.send, standing);
      refusals.set(id, check ? await this.refusal(ex, id, check, standing) : null);
    }
    return { accounts, refusals };
  }

  /**
   * The 402 that refuses every send of each of these organizations (suspended: reinstate; no tier
   * yet: setup), or null: for sends that fail before they reach messaging (pod draft sends and
   * cycle jobs of a pod whose cells billing suspended), so they answer as any other send.
   */
  async sendRefusals(organizationIds: readonly string[]): Promise<Map<string, ApiError | null>> {
    if (!this.deps.config.billing) return new Map(organizationIds.map((id) => [id, null]));
    return (await this.standings(this.deps.repo.db, organizationIds)).refusals;
  }

  /** Opens the billing of a batch of sends, in its transaction (one read of the accounts). */
  async sends(tx: Executor, organizationIds: readonly string[]): Promise<SendCharges> {
    if (!this.deps.config.billing) {
      return {
        refusal: () => null,
        charge: async (messages) => {
          const at = this.deps.clock.now();
          await this.deps.repo.insertUsage(
            tx,
            messages.map((message) => this.usageOf(message, at)),
          );
          return messages.map(() => null);
        },
      };
    }
    const { accounts, refusals } = await this.standings(tx, organizationIds);
    return {
      refusal: (organizationId) => refusals.get(organizationId) ?? null,
      charge: (messages) => this.charge(tx, messages, accounts),
    };
  }

  /**
   * Takes the price of each message from its organization's balance, in order, while it covers
   * it (lifecycle POLICIES.message); the rest are refused with a 402 top_up. One conditional update
   * per organization: if a concurrent transaction moved the balance meanwhile, the balance is read
   * again and the split redone.
   */
  private async charge(
    tx: Executor,
    messages: readonly BillableMessage[],
    accounts: Map<string, AccountRow>,
  ): Promise<(ApiError | null)[]> {
    const results: (ApiError | null)[] = messages.map(() => null);
    const byOrganization = Map.groupBy(
      messages.map((message, i) => ({ message, i })),
      ({ message }) => message.organization_id,
    );
    const ledger: Omit<LedgerEntriesTable, 'id'>[] = [];
    const usage: UsageRecordsTable[] = [];
    const at = this.deps.clock.now();
    for (const [organizationId, entries] of byOrganization) {
      let balance = micros(accounts.get(organizationId)?.prepaid_balance_micros ?? 0);
      for (;;) {
        let left = balance;
        let total = ZERO;
        const accepted = new Set<number>();
        for (const { message, i } of entries) {
          const price = this.priceOf(message).amount;
          if (!firstRefusal(POLICIES.message, { price, balance: left })) {
            left = minus(left, price);
            total = plus(total, price);
            accepted.add(i);
          } else {
            const amount = topUpAmount(price, left, this.prices.minAmountMicros);
            results[i] = this.deps.offers.paymentRequired(
              `The prepaid balance cannot cover this message (${dollars(price)}): top up.`,
              'top_up',
              amount,
            );
          }
        }
        if (total === 0 || (await this.deps.repo.debitIfCovered(tx, organizationId, total))) {
          for (const { message, i } of entries) {
            if (!accepted.has(i)) continue;
            const record = this.usageOf(message, at);
            usage.push(record);
            ledger.push({
              organization_id: organizationId,
              kind: 'message',
              amount_micros: negated(record.amount_micros),
              reference: messageReference(message.id),
              description: `${record.type} x${record.quantity}`,
              created_at: record.created_at,
            });
          }
          break;
        }
        balance = await this.deps.repo.balance(tx, organizationId);
        for (const { i } of entries) results[i] = null;
      }
    }
    await this.deps.repo.insertCharges(tx, ledger, usage);
    return results;
  }

  /**
   * Refunds messages that failed or were canceled before they were sent, in the transaction that
   * settles them: a ledger credit referencing each charged one (once: its reference is unique),
   * and its usage record goes, since the message is no longer billed.
   */
  async refund(tx: Executor, messageIds: readonly string[]): Promise<void> {
    if (messageIds.length === 0) return;
    const now = this.deps.clock.now().toISOString();
    const debits = await this.deps.repo.ledgerByReference(tx, messageIds.map(messageReference));
    for (const debit of debits) {
      await this.deps.repo.appendLedger(tx, {
        organization_id: debit.organization_id,
        kind: 'refund',
        amount_micros: negated(micros(debit.amount_micros)),
        reference: `refund:${debit.reference}`,
        description: 'not sent',
        created_at: now,
      });
    }
    await this.deps.repo.deleteMessageUsage(tx, messageIds);
  }

  /**
   * Admits a cell create, in its transaction (lifecycle POLICIES.cellCreate): an inactive
   * organization pays the setup of `tier` (starter by default), a suspended one the amount due;
   * past the tier's included cells a paid create_cell credit is consumed (with its cell-month
   * usage record), or the create is 402 create_cell. The account is locked on PostgreSQL, so
   * concurrent creates count one by one.
   */
  async admitCell(
    tx: Executor,
    organizationId: string,
    cellId: string,
    tier?: string,
    phoneFree?: () => Promise<boolean>,
  ): Promise<void> {
    if (tier !== undefined) tierOf(this.prices, tier);
    if (!this.deps.config.billing) return;
    const now = this.deps.clock.now().toISOString();
    const account = await this.deps.repo.lockAccount(tx, organizationId, now);
    const facts = await this.cellFacts(tx, organizationId, account, account.cell_credits);
    const refused = firstRefusal(POLICIES.cellCreate, facts);
    if (refused)
      throw await this.withPhoneWarning(await this.refusal(tx, organizationId, refused, account, tier), phoneFree);
    if (facts.activeCells < facts.includedCells) return;
    // The credit the check counted, taken by a conditional update all the same.
    if (!(await this.deps.repo.consumeCellCredit(tx, organizationId)))
      throw await this.withPhoneWarning(await this.refusal(tx, organizationId, TIER_FULL, account, tier), phoneFree);
    await this.deps.accounts.cellMonths(tx, organizationId, cellId, 1, now);
  }

  /** What lifecycle POLICIES.cellCreate asks of a cell create. */
  private async cellFacts(ex: Executor, organizationId: string, account: Standing, cellCredits: number) {
    const activeCells = await this.deps.accounts.activeCells(organizationId, ex);
    return {
      state: account.state,
      activeCells,
      includedCells: tierOf(this.prices, account.tier).includedCells,
      cellCredits,
    };
  }

  /**
   * A 402 that pays for a cell (its plan's setup, one more cell) warns, before the money is taken,
   * when no phone is free: the cell paid for will wait in provisioning until a phone is added.
   */
  private async withPhoneWarning(refusal: ApiError, phoneFree?: () => Promise<boolean>): Promise<ApiError> {
    const payment = refusal.extensions?.payment as { intent?: string } | undefined;
    if (!phoneFree || (payment?.intent !== 'setup' && payment?.intent !== 'create_cell') || (await phoneFree()))
      return refusal;
    return new ApiError('payment_required', `${refusal.message} ${NO_PHONE_FREE}`, {
      errors: refusal.errors,
      headers: refusal.headers,
      extensions: refusal.extensions,
    });
  }

  /** What a cell create (of `tier`) would take now, as admitCell decides it, taking nothing. */
  async cellQuote(organizationId: string, tier?: string): Promise<ChargeQuote> {
    if (tier !== undefined) tierOf(this.prices, tier);
    if (!this.deps.config.billing) return { ...BILLING_OFF };
    const row = await this.deps.repo.account(this.deps.repo.db, organizationId);
    const account: Standing = row ?? NO_ACCOUNT;
    const facts = await this.cellFacts(this.deps.repo.db, organizationId, account, row?.cell_credits ?? 0);
    const refused = firstRefusal(POLICIES.cellCreate, facts);
    if (refused) return paymentQuote(await this.refusal(this.deps.repo.db, organizationId, refused, account, tier));
    if (facts.activeCells < facts.includedCells)
      return quoteOf(
        ZERO,
        'included',
        `Included in the ${account.tier} tier: cell ${facts.activeCells + 1} of ${facts.includedCells}.`,
      );
    return quoteOf(this.prices.extraCellMicros, 'cell_credit', 'One cell-month, from a create_cell already paid.');
  }

  /** What `count` text messages of `segments` segments each would take now from the balance, taking nothing. */
  async sendsQuote(organizationId: string, count: number, segments: number): Promise<ChargeQuote> {
    const amount = times(times(this.prices.smsSegmentMicros, segments), count);
    const what = `${count} message(s) of ${segments} segment(s)`;
    if (!this.deps.config.billing) return { ...BILLING_OFF };
    const refusal = (await this.sendRefusals([organizationId])).get(organizationId);
    if (refusal) return paymentQuote(refusal);
    const balance = await this.deps.accounts.balance(organizationId);
    if (amount > balance) {
      const due = topUpAmount(amount, balance, this.prices.minAmountMicros);
      return {
        ...quoteOf(
          amount,
          'payment',
          `${what}: ${dollars(amount)}; the balance (${dollars(balance)}) covers part: messages it cannot cover are refused. Top up first.`,
        ),
        payment: this.deps.offers.details('top_up', due, {}),
      };
    }
    return quoteOf(amount, 'balance', `${what}: ${dollars(amount)}, from the prepaid balance (${dollars(balance)}).`);
  }
}
