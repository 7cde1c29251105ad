// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The billing lifecycle's pure decisions, table-driven: each state with each event gives one
// next state (or a refusal), and each paid action's refusal checks answer in their order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  atPeriodEnd,
  BILLING_STATES,
  buysPeriod,
  firstRefusal,
  GRACE_MS,
  grantedPeriodEnd,
  keptOnBalance,
  owes,
  paidPeriodEnd,
  POLICIES,
  reinstatement,
  renews,
  suspension,
  topUpAmount,
  type BillingState,
  type Standing,
} from './lifecycle.ts';
import { micros } from './money.ts';

const NOW = new Date('2099-03-15T12:00:00.000Z');
const iso = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
const DAY = 24 * 3600 * 1000;
const standing = (state: BillingState, end: string | null, tier: string | null = 'starter'): Standing => ({
  state,
  tier,
  current_period_end: end,
});

describe('billing lifecycle: a period end', () => {
  // [state, period end, balance covers the renewal, what happens]
  const table: [BillingState, string | null, boolean, string | null][] = [
    ['inactive', iso(-DAY), true, null],
    ['inactive', null, false, null],
    ['active', iso(DAY), true, null],
    ['active', iso(DAY), false, null],
    ['active', iso(0), true, 'renew → active'],
    ['active', iso(-DAY), true, 'renew → active'],
    ['active', iso(-DAY), false, 'lapse → past_due'],
    ['active', null, false, null],
    ['past_due', iso(-DAY), true, 'renew → active'],
    ['past_due', iso(-DAY), false, null],
    ['past_due', iso(-GRACE_MS + 1), false, null],
    ['past_due', iso(-GRACE_MS), false, 'lapse → suspended'],
    ['past_due', iso(-GRACE_MS - DAY), true, 'renew → active'],
    ['suspended', iso(-GRACE_MS - DAY), true, null],
    ['suspended', iso(-GRACE_MS - DAY), false, null],
  ];
  for (const [state, end, covered, expected] of table) {
    it(`${state}, period end ${end === null ? 'none' : `${(Date.parse(end) - NOW.getTime()) / DAY} days from now`}, ${covered ? 'covered' : 'not covered'}: ${expected ?? 'nothing'}`, () => {
      const decision = atPeriodEnd(standing(state, end), covered, NOW);
      assert.equal(decision === null ? null : `${decision.kind} → ${decision.next.state}`, expected);
    });
  }

  it('renews for one month from the end that passed, not from now', () => {
    const decision = atPeriodEnd(standing('past_due', '2099-01-31T00:00:00.000Z'), true, NOW);
    assert.deepEqual(decision, {
      kind: 'renew',
      end: '2099-01-31T00:00:00.000Z',
      next: { state: 'active', current_period_end: '2099-02-28T00:00:00.000Z' },
    });
  });

  it('owes in past_due and suspended only, and renews in active and past_due only', () => {
    assert.deepEqual(BILLING_STATES.filter(owes), ['past_due', 'suspended']);
    assert.deepEqual(BILLING_STATES.filter(renews), ['active', 'past_due']);
  });
});

describe('billing lifecycle: the operator', () => {
  // [state, tier, period end, reinstatement's answer]
  const reinstatements: [BillingState, string | null, string | null, string][] = [
    ['inactive', null, null, 'refused not_owing'],
    ['active', 'starter', iso(DAY), 'refused not_owing'],
    ['suspended', 'starter', iso(DAY), 'active'],
    ['suspended', 'starter', iso(-DAY), 'past_due'],
    ['suspended', null, null, 'inactive'],
    ['past_due', 'starter', iso(DAY), 'active'],
    ['past_due', 'starter', iso(-DAY), 'refused unpaid'],
    ['past_due', null, iso(-DAY), 'inactive'],
  ];
  for (const [state, tier, end, expected] of reinstatements) {
    it(`reinstating ${state} (tier ${tier ?? 'none'}, period ${end === null ? 'none' : end > NOW.toISOString() ? 'paid' : 'over'}): ${expected}`, () => {
      const decision = reinstatement(standing(state, end, tier), NOW);
      assert.equal('refused' in decision ? `refused ${decision.refused}` : decision.next.state, expected);
    });
  }

  it('suspends every state but suspended', () => {
    for (const state of BILLING_STATES) {
      const decision = suspension(standing(state, null));
      assert.deepEqual(
        decision,
        state === 'suspended' ? { refused: 'already_suspended' } : { next: { state: 'suspended' } },
        state,
      );
    }
  });

  it('grants months after the paid end of an active organization, else from now', () => {
    assert.equal(grantedPeriodEnd(standing('active', '2099-04-01T00:00:00.000Z'), 2, NOW), '2099-06-01T00:00:00.000Z');
    assert.equal(grantedPeriodEnd(standing('active', iso(-DAY)), 1, NOW), '2099-04-15T12:00:00.000Z');
    assert.equal(
      grantedPeriodEnd(standing('past_due', '2099-04-01T00:00:00.000Z'), 1, NOW),
      '2099-04-15T12:00:00.000Z',
    );
    assert.equal(grantedPeriodEnd(standing('inactive', null, null), 3, NOW), '2099-06-15T12:00:00.000Z');
  });
});

describe('billing lifecycle: payments', () => {
  it('buys a period with setup, reinstate and the tier renewal; not with top_up, create_cell or one cell', () => {
    assert.deepEqual(
      [
        buysPeriod('setup', null),
        buysPeriod('reinstate', null),
        buysPeriod('renewal', null),
        buysPeriod('renewal', 'cell_1'),
        buysPeriod('top_up', null),
        buysPeriod('create_cell', null),
      ],
      [true, true, true, false, false, false],
    );
  });

  it('keeps a top-up and one cell renewal on the balance, nothing of the others', () => {
    const amount = micros(25_000_000);
    assert.equal(keptOnBalance('top_up', { micros: amount }), amount);
    assert.equal(keptOnBalance('renewal', { micros: amount, cellId: 'cell_1' }), amount);
    for (const intent of ['setup', 'renewal', 'reinstate', 'create_cell'] as const)
      assert.equal(keptOnBalance(intent, { micros: amount }), 0, intent);
  });

  it('starts a setup now; continues a renewal from a paid end less than a month behind, else from now', () => {
    const paidAhead = standing('active', '2099-04-01T00:00:00.000Z');
    assert.equal(paidPeriodEnd(paidAhead, 'setup', NOW), '2099-04-15T12:00:00.000Z');
    assert.equal(paidPeriodEnd(paidAhead, 'renewal', NOW), '2099-05-01T00:00:00.000Z');
    assert.equal(
      paidPeriodEnd(standing('past_due', '2099-03-01T00:00:00.000Z'), 'reinstate', NOW),
      '2099-04-01T00:00:00.000Z',
    );
    assert.equal(
      paidPeriodEnd(standing('suspended', '2099-01-01T00:00:00.000Z'), 'reinstate', NOW),
      '2099-04-15T12:00:00.000Z',
    );
    assert.equal(paidPeriodEnd(standing('inactive', null, null), 'renewal', NOW), '2099-04-15T12:00:00.000Z');
  });
});

describe('billing lifecycle: refusal checks, in order', () => {
  const names = (policy: readonly { name: string; intent: string }[]) =>
    policy.map((check) => `${check.name}:${check.intent}`);

  it('asks a send no_tier then suspended, a message balance_short, a cell create no_tier, suspended then tier_full', () => {
    assert.deepEqual(names(POLICIES.send), ['no_tier:setup', 'suspended:reinstate']);
    assert.deepEqual(names(POLICIES.message), ['balance_short:top_up']);
    assert.deepEqual(names(POLICIES.cellCreate), ['no_tier:setup', 'suspended:reinstate', 'tier_full:create_cell']);
  });

  // [state, active cells, included cells, cell credits, the first refusal of a cell create]
  const cellCreates: [BillingState, number, number, number, string | null][] = [
    ['inactive', 0, 1, 0, 'no_tier'],
    ['inactive', 5, 1, 0, 'no_tier'],
    ['suspended', 5, 1, 0, 'suspended'],
    ['suspended', 0, 1, 3, 'suspended'],
    ['active', 0, 1, 0, null],
    ['active', 1, 1, 0, 'tier_full'],
    ['active', 1, 1, 1, null],
    ['active', 12, 10, 0, 'tier_full'],
    ['past_due', 0, 1, 0, null],
    ['past_due', 1, 1, 0, 'tier_full'],
  ];
  for (const [state, activeCells, includedCells, cellCredits, expected] of cellCreates) {
    it(`a cell create when ${state} with ${activeCells}/${includedCells} cells and ${cellCredits} credits: ${expected ?? 'admitted'}`, () => {
      assert.equal(
        firstRefusal(POLICIES.cellCreate, { state, activeCells, includedCells, cellCredits })?.name ?? null,
        expected,
      );
    });
  }

  it('refuses the sends of inactive and suspended organizations only', () => {
    const refused = BILLING_STATES.map((state) => [state, firstRefusal(POLICIES.send, { state })?.intent ?? null]);
    assert.deepEqual(refused, [
      ['inactive', 'setup'],
      ['active', null],
      ['past_due', null],
      ['suspended', 'reinstate'],
    ]);
  });

  it('refuses a message its balance cannot cover, and asks the shortfall or at least the minimum', () => {
    const cents = (n: number) => micros(n * 10_000);
    assert.equal(firstRefusal(POLICIES.message, { price: cents(1), balance: cents(1) }), null);
    assert.equal(firstRefusal(POLICIES.message, { price: cents(2), balance: cents(1) })?.name, 'balance_short');
    assert.equal(topUpAmount(cents(3), cents(1), cents(500)), cents(500));
    assert.equal(topUpAmount(cents(900), cents(100), cents(500)), cents(800));
  });
});
