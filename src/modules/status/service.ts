// GET /v1/agent/status: the one call an agent makes to learn what is wrong (contract §9), built
// from the other modules' services.
import type { Bucket, RateLimitPolicy } from '../../lib/rate-limit-policy.ts';
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

interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

export class AgentStatusService {
  private readonly cells: CellsService;
  private readonly messages: MessagesService;
  private readonly webhooks: WebhooksService;
  private readonly perCredential: Bucket | null;
  private readonly billing: BillingStatusPort | null;

  constructor(deps: {
    cells: CellsService;
    messages: MessagesService;
    webhooks: WebhooksService;
    rateLimit: RateLimitPolicy;
    billing?: BillingStatusPort;
  }) {
    this.billing = deps.billing ?? null;
    this.cells = deps.cells;
    this.messages = deps.messages;
    this.webhooks = deps.webhooks;
    this.perCredential = deps.rateLimit.perCredential;
  }

  async status(agent: Pick<AgentPrincipal, 'organizationId' | 'organizationName' | 'organizationStatus' | 'scopes'>) {
    // Billing state and balance are billing:read's (API keys carry it): an OAuth token without it
    // gets billing null and a billing check that says only that it is hidden, the same in every state.
    const showBilling = agent.scopes.includes('billing:read');
    const [cells, messages, webhooks, billing] = await Promise.all([
      this.cells.counts(agent.organizationId),
      this.messages.healthCounts(agent.organizationId),
      this.webhooks.summary(agent.organizationId),
      showBilling ? this.billing?.status(agent.organizationId) : undefined,
    ]);
    // Only asked when something is offline: a phone that never called in needs starting, not fixing.
    const neverSeen = cells.offline > 0 ? await this.cells.countNeverSeen(agent.organizationId) : 0;
    const checks: Check[] = [
      agent.organizationStatus === 'active'
        ? { name: 'organization', status: 'ok', detail: 'The organization is verified.' }
        : agent.organizationStatus === 'unverified'
          ? {
              name: 'organization',
              status: 'fail',
              detail: 'Verify the organization: POST /v1/agent/verify with the emailed code.',
            }
          : { name: 'organization', status: 'fail', detail: 'The organization is suspended.' },
      cellsCheck(cells, neverSeen),
      failed24h(messages.failed_24h),
      !showBilling
        ? BILLING_HIDDEN
        : billing
          ? billingCheck(billing, this.billing?.minAmountUsd ?? 0)
          : { name: 'billing', status: 'ok', detail: 'Billing is not wired in here.' },
      webhooks.failing > 0
        ? {
            name: 'webhooks',
            status: 'warn',
            detail: `${webhooks.failing} of ${plural(webhooks.total, 'webhook')} ${isAre(webhooks.failing)} failing or disabled; see GET /v1/webhooks/{id}/deliveries.`,
          }
        : {
            name: 'webhooks',
            status: 'ok',
            detail: webhooks.total > 0 ? 'Every webhook is delivering.' : 'No webhooks; events are on the stream.',
          },
    ];
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
      rate_limit: this.perCredential
        ? { requests_per_second: this.perCredential.rate, burst: this.perCredential.burst }
        : null,
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
const BILLING_HIDDEN: Check = {
  name: 'billing',
  status: 'warn',
  detail:
    'Hidden: this token lacks the billing:read scope. Sends and cell creates that billing blocks still answer 402 with the payment that unblocks them.',
};

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
    return {
      name: 'cells',
      status: 'fail',
      detail: `${cells.offline} of ${plural(cells.active, 'active cell')} ${isAre(cells.offline)} offline: ${why}.`,
    };
  }
  if (cells.provisioning > 0) {
    const one = cells.provisioning === 1;
    return {
      name: 'cells',
      status: 'warn',
      detail: `${plural(cells.provisioning, 'cell')} ${one ? 'waits' : 'wait'} for a free phone; ${one ? 'it activates' : 'they activate'} when the operator adds one.`,
    };
  }
  if (cells.total === 0) return { name: 'cells', status: 'warn', detail: 'No cells yet: POST /v1/cells.' };
  return {
    name: 'cells',
    status: 'ok',
    detail: `${plural(cells.active, 'active cell')}, ${cells.active === 1 ? 'online' : 'all online'}.`,
  };
}

function failed24h(failed: number): Check {
  return failed > 0
    ? {
        name: 'messages',
        status: 'warn',
        detail: `${plural(failed, 'message')} failed in the last 24 hours; filter GET /v1/cells/{cell_id}/messages?status=failed for their errors.`,
      }
    : { name: 'messages', status: 'ok', detail: 'No failed messages in the last 24 hours.' };
}

/** What billing lets the organization do now, and what to pay next (contract §7). */
function billingCheck(billing: BillingSummary, minAmountUsd: number): Check {
  const due = dollarsOfNumber(billing.amount_due_usd);
  const balance = dollarsOfNumber(billing.prepaid_balance_usd);
  switch (billing.state) {
    case 'exempt':
      return { name: 'billing', status: 'ok', detail: 'Billing is off on this deployment: nothing is charged.' };
    case 'inactive':
      return {
        name: 'billing',
        status: 'warn',
        detail:
          'No paid tier yet: pay the setup (POST /v1/billing/checkout or x402, intent setup) before creating cells.',
      };
    case 'past_due':
      return {
        name: 'billing',
        status: 'warn',
        detail: `The period ended unpaid: pay ${due} (intent reinstate) within the 7-day grace, or sends and cell creates stop.`,
      };
    case 'suspended':
      return {
        name: 'billing',
        status: 'fail',
        detail: `Suspended: sends and cell creates answer 402 until ${due} is paid (intent reinstate).`,
      };
    default:
      if (billing.prepaid_balance_usd < minAmountUsd) {
        return {
          name: 'billing',
          status: 'warn',
          detail: `Prepaid balance ${balance} is low: top up (intent top_up) to keep sending.`,
        };
      }
      return {
        name: 'billing',
        status: 'ok',
        detail: `Active on ${billing.tier} until ${billing.current_period_end}; prepaid balance ${balance}.`,
      };
  }
}
