// The billing lifecycle of an organization (contract §7), as data and pure decisions, like
// messages/lifecycle.ts: inactive (no tier yet) → active (paid through current_period_end) →
// past_due (period over, 7-day grace, sending continues) → suspended → active after reinstatement.
// Services read the facts, ask these functions, and write the answer; nothing here touches the
// database, the clock or the prices. The refusals of paid actions are ordered lists of small named
// checks (node-oidc-provider's interaction policies): the first that refuses names the intent
// whose payment lifts it.
import { larger, minus, ZERO, type Micros } from './money.ts';

/** Every billing state, in lifecycle order; the column type and the schema enums come from it. */
export const BILLING_STATES = ['inactive', 'active', 'past_due', 'suspended'] as const;
export type BillingState = (typeof BILLING_STATES)[number];

/** States that owe the renewal: it is their amount due, and only they can pay `reinstate`. */
export const owes = (state: BillingState): boolean => state === 'past_due' || state === 'suspended';
/** States whose period end renews from the prepaid balance, or lapses. */
export const renews = (state: BillingState): boolean => state === 'active' || state === 'past_due';

/** What a payment can be for (PaymentDetails.intent). */
export const INTENTS = ['setup', 'renewal', 'top_up', 'reinstate', 'create_cell'] as const;
export type Intent = (typeof INTENTS)[number];

/** After the period end, sending continues this long before the organization is suspended. */
export const GRACE_MS = 7 * 24 * 3600 * 1000;

/** The billing record as the rules see it. */
export interface Standing {
  state: BillingState;
  tier: string | null;
  current_period_end: string | null;
}

/** An organization without an account row is inactive. */
export const NO_ACCOUNT: Standing = { state: 'inactive', tier: null, current_period_end: null };

/** The same day `months` later, or the month's last day when it has no such day (UTC). */
export function addMonths(from: Date, months: number): Date {
  const next = new Date(from);
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + months);
  const last = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, last));
  return next;
}

/** Whether the paid period still runs at `now` (ISO strings compare as instants). */
const paidAt = (account: Standing, now: Date): boolean =>
  account.current_period_end !== null && account.current_period_end > now.toISOString();

// Period ends.

/** Whether a renewing account's paid period is over at `now`: its period end has something to decide. */
export function periodOver(account: Standing, now: Date): boolean {
  return renews(account.state) && account.current_period_end !== null && !paidAt(account, now);
}

export type PeriodEnd =
  /** The renewal is taken from the balance: active for one more month from the end. */
  | { kind: 'renew'; end: string; next: { state: 'active'; current_period_end: string } }
  /** Not covered: active becomes past_due; past_due becomes suspended once the grace is over. */
  | { kind: 'lapse'; end: string; next: { state: 'past_due' | 'suspended' } };

/**
 * What the period end does to the account at `now`, given whether the balance covers the
 * renewal; null when nothing is due yet (period running, grace running, or a state that does not
 * renew).
 */
export function atPeriodEnd(account: Standing, covered: boolean, now: Date): PeriodEnd | null {
  const end = account.current_period_end;
  if (!periodOver(account, now) || end === null) return null;
  if (covered)
    return {
      kind: 'renew',
      end,
      next: { state: 'active', current_period_end: addMonths(new Date(end), 1).toISOString() },
    };
  if (account.state === 'active') return { kind: 'lapse', end, next: { state: 'past_due' } };
  return new Date(end).getTime() + GRACE_MS <= now.getTime()
    ? { kind: 'lapse', end, next: { state: 'suspended' } }
    : null;
}

// Payments.

/** setup, reinstate and the renewal of the tier buy a period; top_up, create_cell and the renewal of one cell do not. */
export function buysPeriod(intent: Intent, cellId: string | null | undefined): boolean {
  return intent === 'setup' || intent === 'reinstate' || (intent === 'renewal' && !cellId);
}

/**
 * What a payment of this intent leaves on the prepaid balance: a top-up and the renewal of one
 * cell stay there; the others buy something at once (credited, then debited in the same step).
 */
export function keptOnBalance(intent: Intent, what: { micros: Micros; cellId?: string | null }): Micros {
  return intent === 'top_up' || (intent === 'renewal' && what.cellId) ? what.micros : ZERO;
}

/**
 * The end of the period a payment buys: a month from now for a setup; a renewal or reinstatement
 * continues from the paid end while that end is less than a month behind, else starts now.
 */
export function paidPeriodEnd(account: Standing, intent: Intent, now: Date): string {
  const paidEnd =
    account.current_period_end !== null && intent !== 'setup' ? new Date(account.current_period_end) : null;
  const from = paidEnd && addMonths(paidEnd, 1) > now ? paidEnd : now;
  return addMonths(from, 1).toISOString();
}

// The operator's actions.

export type Decision<Next> = { next: Next } | { refused: string };

/** A manual suspension; refused when already suspended. */
export function suspension(account: Standing): Decision<{ state: 'suspended' }> {
  return account.state === 'suspended' ? { refused: 'already_suspended' } : { next: { state: 'suspended' } };
}

/**
 * A manual reinstatement of a suspended or past-due organization: active while its period is
 * paid, past_due when it is over, inactive without a tier. Refused for other states
 * (`not_owing`) and when it would change nothing (`unpaid`: a past-due organization whose
 * period is over).
 */
export function reinstatement(account: Standing, now: Date): Decision<{ state: BillingState }> {
  if (!owes(account.state)) return { refused: 'not_owing' };
  const state: BillingState = !account.tier ? 'inactive' : paidAt(account, now) ? 'active' : 'past_due';
  return state === account.state ? { refused: 'unpaid' } : { next: { state } };
}

/** A granted period: `months` more from the paid end of an active organization, else from now. */
export function grantedPeriodEnd(account: Standing, months: number, now: Date): string {
  const start =
    account.state === 'active' && paidAt(account, now) ? new Date(account.current_period_end as string) : now;
  return addMonths(start, months).toISOString();
}

// Refusals of paid actions: ordered named checks, the first that refuses wins.

export interface RefusalCheck<Facts> {
  /** A stable name, for tests and for reading a policy at a glance. */
  readonly name: string;
  /** The intent whose payment lifts the refusal: the 402's PaymentDetails.intent. */
  readonly intent: Intent;
  readonly refuses: (facts: Facts) => boolean;
}

type AccountFacts = Pick<Standing, 'state'>;
/** activeCells: not released, before this one; cellCredits: paid create_cell intents not yet consumed. */
type CellFacts = AccountFacts & { activeCells: number; includedCells: number; cellCredits: number };
/** balance: what is left after the messages before it in the batch. */
type MessageFacts = { price: Micros; balance: Micros };

const check = <Facts>(name: string, intent: Intent, refuses: (facts: Facts) => boolean): RefusalCheck<Facts> => ({
  name,
  intent,
  refuses,
});

/** No paid tier yet: pay the setup of a tier. */
export const NO_TIER = check<AccountFacts>('no_tier', 'setup', (facts) => facts.state === 'inactive');
/** Suspended for an unpaid period: pay the amount due. */
export const SUSPENDED = check<AccountFacts>('suspended', 'reinstate', (facts) => facts.state === 'suspended');
/** The tier's included cells are in use and no paid cell is left: pay for one more cell. */
export const TIER_FULL = check<CellFacts>(
  'tier_full',
  'create_cell',
  (facts) => facts.activeCells >= facts.includedCells && facts.cellCredits < 1,
);
/** The balance left cannot cover the message: top up. */
export const BALANCE_SHORT = check<MessageFacts>('balance_short', 'top_up', (facts) => facts.price > facts.balance);

/** Every paid action's checks, in the order they are asked. */
export const POLICIES = {
  /** Every send of an organization (and a pod's draft sends and cycle jobs), once per batch. */
  send: [NO_TIER, SUSPENDED],
  /** Each message of an admitted batch, in order, against the balance left. */
  message: [BALANCE_SHORT],
  /** POST /v1/cells. */
  cellCreate: [NO_TIER, SUSPENDED, TIER_FULL],
} as const satisfies {
  send: readonly RefusalCheck<AccountFacts>[];
  message: readonly RefusalCheck<MessageFacts>[];
  cellCreate: readonly RefusalCheck<CellFacts>[];
};

/** The first check of the policy that refuses these facts, or null when the action may go on. */
export function firstRefusal<Facts>(policy: readonly RefusalCheck<Facts>[], facts: Facts): RefusalCheck<Facts> | null {
  return policy.find((check) => check.refuses(facts)) ?? null;
}

/** What a top_up refusal asks: the shortfall, at least the minimum payment. */
export function topUpAmount(price: Micros, balance: Micros, minimum: Micros): Micros {
  return larger(minus(price, balance), minimum);
}
