// GET /v1/agent/status: the one call an agent makes to learn what is wrong (contract §9), built
// from the other modules' services.
import type { RateLimitPolicy } from '../../lib/rate-limit-policy.ts';
import type { AgentPrincipal } from '../../operations/principals.ts';
import type { CellsService } from '../cells/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import { isAre, plural } from '../../lib/plural.ts';
import { dollarsOfNumber } from '../billing/money.ts';

type CheckStatus = 'ok' | 'warn' | 'fail';

/** What the status needs from billing (src/modules/billing). */
export interface BillingStatusPort {
  status(organizationId: string): Promise<BillingSummary>;
  /** The smallest top-up, in dollars: below it the balance is low. */
  readonly minAmountUsd: number;
}

interface BillingSummary {
  state: string;
  tier: string | null;
  prepaid_balance_usd: number;
  current_period_end: string | null;
  amount_due_usd: number;
}

/** A check's outcome; status() names it. */
interface Check {
  status: CheckStatus;
  detail: string;
}
const ok = (detail: string): Check => ({ status: 'ok', detail });
const warn = (detail: string): Check => ({ status: 'warn', detail });
const fail = (detail: string): Check => ({ status: 'fail', detail });

interface StatusDeps {
  cells: CellsService;
  messages: MessagesService;
  webhooks: WebhooksService;
  rateLimit: RateLimitPolicy;
  billing?: BillingStatusPort;
}

export class AgentStatusService {
  private readonly deps: StatusDeps;

  constructor(deps: StatusDeps) {
    this.deps = deps;
  }

  async status(agent: Pick<AgentPrincipal, 'organizationId' | 'organizationName' | 'organizationStatus' | 'scopes'>) {
    // Billing state and balance are billing:read's (API keys carry it): an OAuth token without it
    // gets billing null and a billing check that says only that it is hidden, the same in every state.
    const showBilling = agent.scopes.includes('billing:read');
    const { perCredential } = this.deps.rateLimit;
    const [cells, messages, webhooks, billing] = await Promise.all([
      this.deps.cells.counts(agent.organizationId),
      this.deps.messages.healthCounts(agent.organizationId),
      this.deps.webhooks.summary(agent.organizationId),
      showBilling ? this.deps.billing?.status(agent.organizationId) : undefined,
    ]);
    // Only asked when something is offline: a phone that never called in needs starting, not fixing.
    const neverSeen = cells.offline > 0 ? await this.deps.cells.countNeverSeen(agent.organizationId) : 0;
    const checks = Object.entries({
      organization:
        agent.organizationStatus === 'active'
          ? ok('The organization is verified.')
          : agent.organizationStatus === 'unverified'
            ? fail('Verify the organization: POST /v1/agent/verify with the emailed code.')
            : fail('The organization is suspended.'),
      cells: cellsCheck(cells, neverSeen),
      messages: failed24h(messages.failed_24h),
      billing: !showBilling
        ? BILLING_HIDDEN
        : billing
          ? billingCheck(billing, this.deps.billing?.minAmountUsd ?? 0)
          : ok('Billing is not wired in here.'),
      webhooks:
        webhooks.failing > 0
          ? warn(
              `${webhooks.failing} of ${plural(webhooks.total, 'webhook')} ${isAre(webhooks.failing)} failing or disabled; see GET /v1/webhooks/{id}/deliveries.`,
            )
          : ok(webhooks.total > 0 ? 'Every webhook is delivering.' : 'No webhooks; events are on the stream.'),
    }).map(([name, check]) => ({ name, ...check }));
    return {
      organization: { id: agent.organizationId, name: agent.organizationName, status: agent.organizationStatus },
      // Without billing wired in, no tier has been bought: the `inactive` state.
      billing: !showBilling
        ? null
        : billing
          ? {
              state: billing.state,
              tier: billing.tier,
              prepaid_balance_usd: billing.prepaid_balance_usd,
              amount_due_usd: billing.amount_due_usd,
            }
          : { state: 'inactive', tier: null, prepaid_balance_usd: 0, amount_due_usd: 0 },
      cells,
      messages,
      webhooks,
      rate_limit: perCredential ? { requests_per_second: perCredential.rate, burst: perCredential.burst } : null,
      checks,
    };
  }
}

/** Whose phones, agreeing with the count: "its phone has", "their phones have", "1 phone has", "2 phones have". */
function phonesHave(n: number, offline: number): string {
  if (n === offline) return n === 1 ? 'its phone has' : 'their phones have';
  return `${plural(n, 'phone')} ${n === 1 ? 'has' : 'have'}`;
}

/** The billing check of a token without billing:read: one fixed answer, so its status says nothing of the state either. */
const BILLING_HIDDEN: Check = warn(
  'Hidden: this token lacks the billing:read scope. Sends and cell creates that billing blocks still answer 402 with the payment that unblocks them.',
);

function cellsCheck(
  cells: { total: number; active: number; offline: number; provisioning: number },
  neverSeen: number,
): Check {
  if (cells.offline > 0) {
    const silent = cells.offline - neverSeen;
    const why = [
      neverSeen > 0 ? `${phonesHave(neverSeen, cells.offline)} never called in (start the phone app on it)` : '',
      silent > 0 ? `${phonesHave(silent, cells.offline)} not called in for 120 s` : '',
    ]
      .filter(Boolean)
      .join('; ');
    return fail(`${cells.offline} of ${plural(cells.active, 'active cell')} ${isAre(cells.offline)} offline: ${why}.`);
  }
  if (cells.provisioning > 0) {
    const one = cells.provisioning === 1;
    return warn(
      `${plural(cells.provisioning, 'cell')} ${one ? 'waits' : 'wait'} for a free phone; ${one ? 'it activates' : 'they activate'} when the operator adds one.`,
    );
  }
  if (cells.total === 0) return warn('No cells yet: POST /v1/cells.');
  return ok(`${plural(cells.active, 'active cell')}, ${cells.active === 1 ? 'online' : 'all online'}.`);
}

function failed24h(failed: number): Check {
  return failed > 0
    ? warn(
        `${plural(failed, 'message')} failed in the last 24 hours; filter GET /v1/cells/{cell_id}/messages?status=failed for their errors.`,
      )
    : ok('No failed messages in the last 24 hours.');
}

/** What billing lets the organization do now, and what to pay next (contract §7). */
function billingCheck(billing: BillingSummary, minAmountUsd: number): Check {
  const due = dollarsOfNumber(billing.amount_due_usd);
  const balance = dollarsOfNumber(billing.prepaid_balance_usd);
  switch (billing.state) {
    case 'exempt':
      return ok('Billing is off on this deployment: nothing is charged.');
    case 'inactive':
      return warn(
        'No paid tier yet: pay the setup (POST /v1/billing/checkout or x402, intent setup) before creating cells.',
      );
    case 'past_due':
      return warn(
        `The period ended unpaid: pay ${due} (intent reinstate) within the 7-day grace, or sends and cell creates stop.`,
      );
    case 'suspended':
      return fail(`Suspended: sends and cell creates answer 402 until ${due} is paid (intent reinstate).`);
    default:
      if (billing.prepaid_balance_usd < minAmountUsd) {
        return warn(`Prepaid balance ${balance} is low: top up (intent top_up) to keep sending.`);
      }
      return ok(`Active on ${billing.tier} until ${billing.current_period_end}; prepaid balance ${balance}.`);
  }
}
