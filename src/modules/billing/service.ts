/** After the period end, sending continues this long before the organization is suspended. */
export const GRACE_MS = 7 * 24 * 3600 * 1000;
const PERIOD_BATCH = 100;

// The rules of billing (contract §7): the billing state of an organization, its prepaid balance
// (the sum of its ledger), what each payment intent costs, the x402 quotes, payer wallets, and
// the operator's actions. Transactions that change the state emit billing.status_changed.
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/schema.ts';
import { transact } from '../../db/transaction.ts';
import type { Clock } from '../../lib/clock.ts';
import { ApiError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { listPage, type PageQuery } from '../../lib/pagination.ts';
import type { CellsService } from '../cells/service.ts';
import type { EventsService } from '../events/service.ts';
import { parseUsd, usdNumber, usdString } from './money.ts';
import { mppSummary } from './mpp-config.ts';
import { ASSET, canonicalAddress, chainOf, NETWORKS, type Network } from './networks.ts';
import type { BillingRepository } from './repository.ts';
import type { BillingAccount, BillingAccountsTable, BillingState, X402WalletsTable } from './tables.ts';

export const INTENTS = ['setup', 'renewal', 'top_up', 'reinstate', 'create_cell'] as const;
export type Intent = (typeof INTENTS)[number];
export const DEFAULT_TIER = 'starter';

export interface X402Quote {
  network: Network;
  caip2_network: string;
  asset: string;
  pay_to: string;
  contract?: string;
  mint?: string;
}

export interface X402Requirements {
  schemes: string[];
  networks: Network[];
  accepted_networks: Network[];
  quotes: X402Quote[];
  asset: string;
  pay_to?: string;
  network?: string;
}

export interface PaymentDetails {
  amount_usd: string;
  currency: string;
  intent: Intent;
  tier?: string;
  cell_id?: string;
  rails: string[];
  checkout_url?: string;
  x402?: X402Requirements;
  /** Present when MPP is configured: realm, methods, pay_url (POST /v1/billing/mpp/pay). */
  mpp?: ReturnType<typeof mppSummary>;
}

export interface RequirementsQuery {
  intent: Intent;
  tier?: string;
  cell_id?: string;
  /** The query's text, checked here: a decimal with at most 2 decimals. */
  amount_usd?: string;
  network?: Network;
}

export type WalletView = { wallet_id: string; organization_id: string; network: Network; address: string; label?: string; created_at: string };

/** The billing record as the rules see it: an organization without a row is inactive. */
type Account = Pick<BillingAccountsTable, 'state' | 'tier' | 'current_period_end'>;
const NO_ACCOUNT: Account = { state: 'inactive', tier: null, current_period_end: null };

export function addMonths(from: Date, months: number): Date {
  const next = new Date(from);
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + months);
  const last = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, last));
  return next;
}

function walletView(row: X402WalletsTable): WalletView {
  return {
    wallet_id: row.id,
    organization_id: row.organization_id,
    network: row.network,
    address: row.address,
    ...(row.label === null ? {} : { label: row.label }),
    created_at: row.created_at,
  };
}

export class BillingService {
  private readonly repo: BillingRepository;
  private readonly clock: Clock;
  private readonly config: Pick<Config, 'billing' | 'prices' | 'x402BasePayTo' | 'x402SolanaPayTo' | 'x402Testnet' | 'baseUrl' | 'mpp'>;
  private readonly cells: CellsService;
  private readonly events: EventsService;
  private readonly postgres: boolean;

  constructor(deps: { repo: BillingRepository; clock: Clock; config: BillingService['config']; cells: CellsService; events: EventsService; postgres: boolean }) {
    this.repo = deps.repo;
    this.clock = deps.clock;
    this.config = deps.config;
    this.cells = deps.cells;
    this.events = deps.events;
    this.postgres = deps.postgres;
  }

  get enabled(): boolean {
    return this.config.billing;
  }

  get minAmountUsd(): number {
    return usdNumber(this.prices.minAmountMicros);
  }

  get prices() {
    return this.config.prices;
  }

  /** The networks with a seller address configured, in a fixed order. */
  private payTo(): Partial<Record<Network, string>> {
    const payTo: Partial<Record<Network, string>> = {};
    if (this.config.x402BasePayTo) payTo.base = this.config.x402BasePayTo;
    if (this.config.x402SolanaPayTo) payTo.solana = this.config.x402SolanaPayTo;
    return payTo;
  }

  /** The seller address of a configured x402 network. */
  payToOf(network: Network): string | undefined {
    return this.payTo()[network];
  }

  private async account(organizationId: string, ex: Executor = this.repo.db): Promise<Account> {
    return (await this.repo.account(ex, organizationId)) ?? NO_ACCOUNT;
  }

  tierOf(name: string | null | undefined, field = 'tier') {
    const tierName = name ?? DEFAULT_TIER;
    const tier = this.prices.tiers[tierName];
    if (!tier) throw invalidField(field, 'invalid_value', `${field} must be one of: ${Object.keys(this.prices.tiers).join(', ')}.`);
    return { name: tierName, ...tier };
  }

  /** Cells that count against the tier: every cell not released. */
  async activeCells(organizationId: string, ex?: Executor): Promise<number> {
    return (await this.cells.counts(organizationId, ex)).total;
  }

  /** A period of the tier with the organization's cells beyond those included. */
  private renewalMicros(tierName: string | null, activeCells: number): number {
    const tier = this.tierOf(tierName);
    return tier.priceMicros + Math.max(0, activeCells - tier.includedCells) * this.prices.extraCellMicros;
  }

  amountDue(account: Account, activeCells: number): number {
    return account.state === 'past_due' || account.state === 'suspended' ? this.renewalMicros(account.tier, activeCells) : 0;
  }

  async status(organizationId: string) {
    const [account, balance, active] = await Promise.all([this.account(organizationId), this.repo.balance(this.repo.db, organizationId), this.activeCells(organizationId)]);
    const included = account.tier ? (this.prices.tiers[account.tier]?.includedCells ?? 0) : 0;
    return {
      state: this.enabled ? account.state : ('exempt' as const),
      tier: account.tier,
      prepaid_balance_usd: usdNumber(balance),
      current_period_end: account.current_period_end,
      amount_due_usd: usdNumber(this.enabled ? this.amountDue(account, active) : 0),
      cells: { included, active },
    };
  }

  private rails(): string[] {
    return ['card_processor', ...(Object.keys(this.payTo()).length > 0 ? ['x402'] : []), ...(this.config.mpp ? ['mpp'] : [])];
  }

  /** The mpp block (realm, methods, where to pay); undefined when MPP is not configured. */
  mpp() {
    return this.config.mpp ? mppSummary(this.config.mpp, this.config.baseUrl) : undefined;
  }

  /** The x402 block: every configured network, or only `only`; undefined when none is configured. */
  x402(only?: Network): X402Requirements | undefined {
    const payTo = this.payTo();
    const networks = NETWORKS.filter((n) => payTo[n]);
    if (only && !payTo[only]) {
      throw invalidField('network', 'not_configured', `The ${only} rail is not configured here; configured: ${networks.join(', ') || 'none'}.`);
    }
    if (networks.length === 0) return undefined;
    const quoted = only ? [only] : networks;
    const quotes = quoted.map((network): X402Quote => {
      const chain = chainOf(network, this.config.x402Testnet);
      return {
        network,
        caip2_network: chain.caip2,
        asset: ASSET,
        pay_to: payTo[network] as string,
        ...(network === 'base' ? { contract: chain.token } : { mint: chain.token }),
      };
    });
    return {
      schemes: ['exact'],
      networks,
      accepted_networks: quoted,
      quotes,
      asset: ASSET,
      ...(quotes.length === 1 ? { pay_to: quotes[0].pay_to, network: quotes[0].caip2_network } : {}),
    };
  }

  async paymentOptions(organizationId: string) {
    const balance = await this.repo.balance(this.repo.db, organizationId);
    const x402 = this.x402();
    const mpp = this.mpp();
    return {
      rails: this.rails(),
      prepaid_balance_usd: usdNumber(balance),
      min_amount_usd: usdNumber(this.prices.minAmountMicros),
      ...(x402 ? { x402 } : {}),
      ...(mpp ? { mpp } : {}),
      card_processor: { provider: 'local', checkout_url: `${this.config.baseUrl}/v1/billing/checkout`, currency: 'USD' },
    };
  }

  /** What an intent costs this organization now, with where to pay it. */
  async requirements(organizationId: string, query: RequirementsQuery): Promise<PaymentDetails> {
    const x402 = this.x402(query.network);
    const { micros, tier, cellId } = await this.price(organizationId, query);
    return this.details(query.intent, micros, { tier, cellId }, x402);
  }

  private details(intent: Intent, micros: number, what: { tier?: string; cellId?: string }, x402 = this.x402()): PaymentDetails {
    const mpp = this.mpp();
    return {
      amount_usd: usdString(micros),
      currency: 'USD',
      intent,
      ...(what.tier ? { tier: what.tier } : {}),
      ...(what.cellId ? { cell_id: what.cellId } : {}),
      rails: this.rails(),
      ...(x402 ? { x402 } : {}),
      ...(mpp ? { mpp } : {}),
    };
  }

  /** The 402 of contract §2: `payment` is the PaymentDetails of the intent that unblocks the action. */
  paymentRequired(detail: string, intent: Intent, micros: number, what: { tier?: string; cellId?: string } = {}): ApiError {
    return new ApiError('payment_required', detail, { extensions: { payment: this.details(intent, micros, what) } });
  }

  /** The 402 of paying an intent directly (x402 or MPP pay routes): its PaymentDetails. */
  async intentRequired(organizationId: string, query: Omit<RequirementsQuery, 'network'>): Promise<ApiError> {
    if (!this.enabled) return new ApiError('billing_disabled', 'Billing is off on this deployment: nothing is charged or paid.');
    const { micros, tier, cellId } = await this.price(organizationId, query);
    return this.paymentRequired(`Pay ${usdString(micros)} for ${query.intent}.`, query.intent, micros, { tier, cellId });
  }

  private amountOf(text: string): number {
    const micros = parseUsd(text);
    if (micros === null) throw invalidField('amount_usd', 'invalid_format', 'amount_usd must be a decimal amount in dollars with at most 2 decimals, e.g. 25 or 12.50.');
    return micros;
  }

  /** What an intent costs this organization now (400, 404 and 409 as for the requirements). */
  async price(organizationId: string, query: RequirementsQuery): Promise<{ micros: number; tier?: string; cellId?: string }> {
    if (query.amount_usd !== undefined) this.amountOf(query.amount_usd);
    switch (query.intent) {
      case 'setup': {
        const tier = this.tierOf(query.tier);
        return { micros: tier.priceMicros, tier: tier.name };
      }
      case 'renewal': {
        if (query.cell_id) {
          await this.cells.getOwned(organizationId, query.cell_id);
          return { micros: this.prices.extraCellMicros, cellId: query.cell_id };
        }
        const account = await this.account(organizationId);
        const tier = this.tierOf(query.tier ?? account.tier);
        return { micros: this.renewalMicros(tier.name, await this.activeCells(organizationId)), tier: tier.name };
      }
      case 'top_up': {
        if (query.amount_usd === undefined) throw invalidField('amount_usd', 'required', 'amount_usd is required for a top_up.');
        const micros = this.amountOf(query.amount_usd);
        if (micros < this.prices.minAmountMicros) {
          throw invalidField('amount_usd', 'too_small', `amount_usd must be at least ${usdString(this.prices.minAmountMicros)}.`);
        }
        return { micros };
      }
      case 'reinstate': {
        const account = await this.account(organizationId);
        if (!this.enabled || (account.state !== 'past_due' && account.state !== 'suspended')) {
          throw new ApiError('conflict', 'Nothing to reinstate: the organization is neither past due nor suspended.');
        }
        return { micros: this.amountDue(account, await this.activeCells(organizationId)), tier: account.tier ?? undefined };
      }
      case 'create_cell':
        return { micros: this.prices.extraCellMicros };
    }
  }

  async createWallet(organizationId: string, input: { network: Network; address: string; label?: string }): Promise<{ created: boolean; wallet: WalletView }> {
    const address = canonicalAddress(input.network, input.address);
    if (!address) {
      throw invalidField(
        'address',
        'invalid_format',
        input.network === 'base' ? 'address must be a 0x EVM address of 40 hex digits with a valid EIP-55 checksum.' : 'address must be a base58 Solana public key (32 bytes).',
      );
    }
    const row: X402WalletsTable = {
      id: newId('wal', this.clock),
      organization_id: organizationId,
      network: input.network,
      address,
      label: input.label ?? null,
      created_at: this.clock.now().toISOString(),
    };
    if (await this.repo.insertWallet(this.repo.db, row)) return { created: true, wallet: walletView(row) };
    const existing = await this.repo.wallet(this.repo.db, input.network, address);
    if (existing && existing.organization_id === organizationId) return { created: false, wallet: walletView(existing) };
    throw new ApiError('wallet_already_registered', 'This wallet is registered to another organization.');
  }

  async listWallets(organizationId: string, query: PageQuery) {
    const page = await listPage(query, (after, count) => this.repo.listWallets(organizationId, after, count), (row) => [row.id]);
    return { wallets: page.items.map(walletView), next_cursor: page.next_cursor };
  }

  async deleteWallet(organizationId: string, walletId: string): Promise<void> {
    if (!(await this.repo.deleteWallet(organizationId, walletId))) throw notFound('wallet');
  }

  /**
   * Worker step (src/workers/billing-periods.ts): for each organization whose paid period is over,
   * the renewal (tier + extra cells) is debited from the prepaid balance when it covers it (the
   * next period starts where the last ended; the ledger reference makes it once per period);
   * otherwise an active organization becomes past_due; at the end of the 7-day grace the renewal
   * is tried again, else the organization is suspended. Nothing happens with billing off.
   * Returns how many accounts changed.
   */
  async closePeriods(): Promise<number> {
    if (!this.enabled) return 0;
    const start = this.clock.now();
    const due = await this.repo.dueAccounts(start.toISOString(), new Date(start.getTime() - GRACE_MS).toISOString(), PERIOD_BATCH);
    let changed = 0;
    for (const { organization_id: organizationId } of due) {
      const active = await this.activeCells(organizationId);
      const did = await transact(this.repo.db, async (tx) => {
        const now = this.clock.now();
        const nowIso = now.toISOString();
        const account = await this.repo.lockAccount(tx, organizationId, nowIso, this.postgres);
        const end = account.current_period_end;
        if ((account.state !== 'active' && account.state !== 'past_due') || end === null || end > nowIso) return false;
        const renewal = this.renewalMicros(account.tier, active);
        if (Number(account.prepaid_balance_micros) >= renewal) {
          await this.repo.appendLedger(tx, {
            organization_id: organizationId,
            kind: 'renewal',
            amount_micros: -renewal,
            reference: `renewal:${organizationId}:${end}`,
            description: `${account.tier} period from ${end}`,
            created_at: nowIso,
          });
          await this.extraCellUsage(tx, organizationId, account.tier, active, nowIso);
          await this.setAccount(tx, organizationId, account, { state: 'active', current_period_end: addMonths(new Date(end), 1).toISOString() }, now);
          return true;
        }
        const lapse = account.state === 'active' ? 'past_due' : new Date(end).getTime() + GRACE_MS <= now.getTime() ? 'suspended' : null;
        if (!lapse) return false;
        await this.events.emit(tx, {
          organizationId,
          type: 'billing.payment_failed',
          data: { organization_id: organizationId, intent: 'renewal', amount_usd: usdString(renewal), reason: 'insufficient_balance', prepaid_balance_usd: usdNumber(Number(account.prepaid_balance_micros)), period_end: end },
        });
        await this.setAccount(tx, organizationId, account, { state: lapse }, now);
        return true;
      });
      if (did) changed += 1;
    }
    return changed;
  }

  /** The cell-months beyond the tier's included cells that a period bills: one usage record. */
  private async extraCellUsage(tx: Executor, organizationId: string, tierName: string | null, activeCells: number, at: string): Promise<void> {
    const extra = Math.max(0, activeCells - this.tierOf(tierName).includedCells);
    if (extra === 0) return;
    const unit = this.prices.extraCellMicros;
    await this.repo.insertUsage(tx, [
      { id: newId('usg', this.clock), organization_id: organizationId, cell_id: null, message_id: null, type: 'cell_month', quantity: extra, unit_price_micros: unit, amount_micros: unit * extra, created_at: at },
    ]);
  }

  /**
   * In the transaction that marks a payment succeeded: its amount is credited to the ledger (its
   * rail reference makes that once), then its intent is applied. setup, renewal (of the tier) and
   * reinstate buy a period: its price is debited and the organization is active to the end of it
   * (a renewal or reinstatement continues from the paid end when that is still ahead). create_cell
   * is debited too and leaves a credit for the next cell create. top_up and the renewal of one
   * cell stay on the prepaid balance. Emits
   * billing.payment_succeeded, and billing.status_changed when the state changes.
   */
  async applyPayment(tx: Executor, payment: { id: string; organization_id: string; rail: string; intent: Intent; tier: string | null; cell_id: string | null; amount_micros: number }): Promise<void> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const organizationId = payment.organization_id;
    const account = await this.repo.lockAccount(tx, organizationId, nowIso, this.postgres);
    const reference = `${payment.rail}:${payment.id}`;
    if (!(await this.repo.appendLedger(tx, { organization_id: organizationId, kind: 'payment', amount_micros: payment.amount_micros, reference, description: payment.intent, created_at: nowIso }))) return;
    if (payment.intent === 'create_cell') {
      // The cell is bought now; the next POST /v1/cells consumes the credit.
      await this.repo.appendLedger(tx, { organization_id: organizationId, kind: 'create_cell', amount_micros: -payment.amount_micros, reference: `create_cell:${payment.id}`, description: 'one cell', created_at: nowIso });
      await this.repo.addCellCredit(tx, organizationId);
    }
    const buysPeriod = payment.intent === 'setup' || payment.intent === 'reinstate' || (payment.intent === 'renewal' && payment.cell_id === null);
    if (buysPeriod) {
      const tier = this.tierOf(payment.tier ?? account.tier);
      await this.repo.appendLedger(tx, { organization_id: organizationId, kind: payment.intent, amount_micros: -payment.amount_micros, reference: `${payment.intent}:${payment.id}`, description: tier.name, created_at: nowIso });
      if (payment.intent !== 'setup') await this.extraCellUsage(tx, organizationId, tier.name, await this.activeCells(organizationId, tx), nowIso);
      const paidEnd = account.current_period_end !== null && payment.intent !== 'setup' ? new Date(account.current_period_end) : null;
      const from = paidEnd && addMonths(paidEnd, 1) > now ? paidEnd : now;
      await this.setAccount(tx, organizationId, account, { state: 'active', tier: tier.name, current_period_end: addMonths(from, 1).toISOString() }, now);
    }
    await this.events.emit(tx, {
      organizationId,
      type: 'billing.payment_succeeded',
      data: { payment_id: payment.id, organization_id: organizationId, rail: payment.rail, intent: payment.intent, tier: payment.tier, cell_id: payment.cell_id, amount_usd: usdString(payment.amount_micros) },
    });
  }

  // The operator's actions (admin surface), each recorded with the admin token's id.

  async listOrganizations(filter: { state?: string; email?: string }, query: PageQuery) {
    const page = await listPage(query, (after, count) => this.repo.listOrganizations(filter, after, count), (row) => [row.id]);
    return {
      organizations: page.items.map((row) => ({
        id: row.id,
        name: row.name,
        email: row.email,
        status: row.status,
        billing_state: this.enabled ? (row.state ?? 'inactive') : 'exempt',
        tier: row.tier ?? null,
        current_period_end: row.current_period_end ?? null,
        created_at: row.created_at,
        verified_at: row.verified_at,
      })),
      next_cursor: page.next_cursor,
    };
  }

  async organization(id: string) {
    const row = await this.repo.organization(id);
    if (!row) throw notFound('organization');
    return { ...row, billing: await this.status(id) };
  }

  private async operatorChange(
    organizationId: string,
    action: { action: 'suspend' | 'reinstate' | 'credit' | 'grant'; reason: string; detail?: Record<string, unknown>; adminTokenId: string },
    change: (tx: Executor, account: BillingAccount, now: Date) => Promise<Partial<Account> | null>,
  ) {
    if (!(await this.repo.organization(organizationId))) throw notFound('organization');
    await transact(this.repo.db, async (tx) => {
      const now = this.clock.now();
      const account = await this.repo.lockAccount(tx, organizationId, now.toISOString(), this.postgres);
      const next = await change(tx, account, now);
      await this.repo.recordAction(tx, {
        organization_id: organizationId,
        action: action.action,
        reason: action.reason,
        detail: action.detail ? JSON.stringify(action.detail) : null,
        admin_token_id: action.adminTokenId,
        created_at: now.toISOString(),
      });
      if (next) await this.setAccount(tx, organizationId, account, next, now);
    });
    return this.organization(organizationId);
  }

  /** Writes the account's new values; emits billing.status_changed when the state changes. */
  private async setAccount(tx: Executor, organizationId: string, before: Account, next: Partial<Account>, now: Date): Promise<void> {
    const after = { ...before, ...next };
    await this.repo.updateAccount(tx, organizationId, { ...next, updated_at: now.toISOString() });
    if ((after.state === 'suspended') !== (before.state === 'suspended')) await this.cells.setSuspended(tx, organizationId, after.state === 'suspended');
    if (after.state !== before.state) {
      await this.events.emit(tx, {
        organizationId,
        type: 'billing.status_changed',
        data: { organization_id: organizationId, state: after.state, previous_state: before.state, tier: after.tier, current_period_end: after.current_period_end },
      });
    }
  }

  suspend(organizationId: string, reason: string, adminTokenId: string) {
    return this.operatorChange(organizationId, { action: 'suspend', reason, adminTokenId }, async (_tx, account) => {
      if (account.state === 'suspended') throw new ApiError('conflict', 'The organization is already suspended.');
      return { state: 'suspended' };
    });
  }

  reinstate(organizationId: string, reason: string, adminTokenId: string) {
    return this.operatorChange(organizationId, { action: 'reinstate', reason, adminTokenId }, async (_tx, account, now) => {
      if (account.state !== 'suspended' && account.state !== 'past_due') {
        throw new ApiError('conflict', 'Only a suspended or past-due organization can be reinstated.');
      }
      const paid = account.current_period_end !== null && account.current_period_end > now.toISOString();
      const state: BillingState = !account.tier ? 'inactive' : paid ? 'active' : 'past_due';
      if (state === account.state) throw new ApiError('conflict', 'The period is over and unpaid: credit or grant a period to reinstate.');
      return { state };
    });
  }

  credit(organizationId: string, amountUsd: string, reason: string, adminTokenId: string) {
    const micros = parseUsd(amountUsd);
    if (micros === null || micros === 0) throw invalidField('amount_usd', 'invalid_format', 'amount_usd must be a positive decimal amount in dollars with at most 2 decimals, e.g. "25.00".');
    return this.operatorChange(organizationId, { action: 'credit', reason, detail: { amount_usd: usdString(micros) }, adminTokenId }, async (tx, _account, now) => {
      await this.repo.appendLedger(tx, { organization_id: organizationId, kind: 'operator_credit', amount_micros: micros, reference: null, description: reason, created_at: now.toISOString() });
      return null;
    });
  }

  grant(organizationId: string, tierName: string, months: number, reason: string, adminTokenId: string) {
    const tier = this.tierOf(tierName);
    return this.operatorChange(organizationId, { action: 'grant', reason, detail: { tier: tier.name, months }, adminTokenId }, async (tx, account, now) => {
      const nowIso = now.toISOString();
      const start = account.state === 'active' && account.current_period_end !== null && account.current_period_end > nowIso ? new Date(account.current_period_end) : now;
      await this.repo.appendLedger(tx, {
        organization_id: organizationId,
        kind: 'operator_grant',
        amount_micros: 0,
        reference: null,
        description: `${tier.name} for ${months} month(s) granted by the operator: ${reason}`,
        created_at: nowIso,
      });
      return { state: 'active', tier: tier.name, current_period_end: addMonths(start, months).toISOString() };
    });
  }
}
