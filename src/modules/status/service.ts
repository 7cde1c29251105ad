// GET /v1/agent/status: the one call an agent makes to learn what is wrong (contract §9), built
// from the other modules' services.
import type { Bucket, RateLimitPolicy } from '../../http/rate-limit.ts';
import type { AgentPrincipal } from '../../http/types.ts';
import type { CellsService } from '../cells/service.ts';
import type { MessagesService } from '../messages/service.ts';
import type { WebhooksService } from '../webhooks/service.ts';

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

  constructor(deps: { cells: CellsService; messages: MessagesService; webhooks: WebhooksService; rateLimit: RateLimitPolicy; billing?: BillingStatusPort }) {
    this.billing = deps.billing ?? null;
    this.cells = deps.cells;
    this.messages = deps.messages;
    this.webhooks = deps.webhooks;
    this.perCredential = deps.rateLimit.perCredential;
  }

  async status(agent: AgentPrincipal) {
    const [cells, messages, webhooks, billing] = await Promise.all([
      this.cells.counts(agent.organizationId),
      this.messages.healthCounts(agent.organizationId),
      this.webhooks.summary(agent.organizationId),
      this.billing?.status(agent.organizationId),
    ]);
    const checks: Check[] = [
      agent.organizationStatus === 'active'
        ? { name: 'organization', status: 'ok', detail: 'The organization is verified.' }
        : agent.organizationStatus === 'unverified'
          ? { name: 'organization', status: 'fail', detail: 'Verify the organization: POST /v1/agent/verify with the emailed code.' }
          : { name: 'organization', status: 'fail', detail: 'The organization is suspended.' },
      cellsCheck(cells),
      failed24h(messages.failed_24h),
      billing ? billingCheck(billing, this.billing?.minAmountUsd ?? 0) : { name: 'billing', status: 'ok', detail: 'Billing is not wired in here.' },
      webhooks.failing > 0
        ? { name: 'webhooks', status: 'warn', detail: `${webhooks.failing} of ${webhooks.total} webhooks are failing or disabled; see GET /v1/webhooks/{id}/deliveries.` }
        : { name: 'webhooks', status: 'ok', detail: webhooks.total > 0 ? 'Every webhook is delivering.' : 'No webhooks; events are on the stream.' },
    ];
    return {
      organization: { id: agent.organizationId, name: agent.organizationName, status: agent.organizationStatus },
      // Without billing wired in, no tier has been bought: the `inactive` state.
      billing: billing
        ? { state: billing.state, tier: billing.tier, prepaid_balance_usd: billing.prepaid_balance_usd, amount_due_usd: billing.amount_due_usd }
        : { state: 'inactive', tier: null, prepaid_balance_usd: 0, amount_due_usd: 0 },
      cells,
      messages,
      webhooks,
      rate_limit: this.perCredential ? { requests_per_second: this.perCredential.rate, burst: this.perCredential.burst } : null,
      checks,
    };
  }
}

function cellsCheck(cells: { total: number; active: number; offline: number; provisioning: number }): Check {
  if (cells.offline > 0) return { name: 'cells', status: 'fail', detail: `${cells.offline} of ${cells.active} active cells are offline: their phones have not called in for 120 s.` };
  if (cells.provisioning > 0) return { name: 'cells', status: 'warn', detail: `${cells.provisioning} cells wait for a free phone; they activate when the operator adds one.` };
  if (cells.total === 0) return { name: 'cells', status: 'warn', detail: 'No cells yet: POST /v1/cells.' };
  return { name: 'cells', status: 'ok', detail: `${cells.active} active cells, all online.` };
}

function failed24h(failed: number): Check {
  return failed > 0
    ? { name: 'messages', status: 'warn', detail: `${failed} messages failed in the last 24 hours; filter GET /v1/cells/{cell_id}/messages?status=failed for their errors.` }
    : { name: 'messages', status: 'ok', detail: 'No failed messages in the last 24 hours.' };
}

/** What billing lets the organization do now, and what to pay next (contract §7). */
function billingCheck(billing: BillingSummary, minAmountUsd: number): Check {
  const due = `$${billing.amount_due_usd.toFixed(2)}`;
  switch (billing.state) {
    case 'exempt':
      return { name: 'billing', status: 'ok', detail: 'Billing is off on this deployment: nothing is charged.' };
    case 'inactive':
      return { name: 'billing', status: 'warn', detail: 'No paid tier yet: pay the setup (POST /v1/billing/checkout or x402, intent setup) before creating cells.' };
    case 'past_due':
      return { name: 'billing', status: 'warn', detail: `The period ended unpaid: pay ${due} (intent reinstate) within the 7-day grace, or sends and cell creates stop.` };
    case 'suspended':
      return { name: 'billing', status: 'fail', detail: `Suspended: sends and cell creates answer 402 until ${due} is paid (intent reinstate).` };
    default:
      if (billing.prepaid_balance_usd < minAmountUsd) {
        return { name: 'billing', status: 'warn', detail: `Prepaid balance $${billing.prepaid_balance_usd.toFixed(2)} is low: top up (intent top_up) to keep sending.` };
      }
      return { name: 'billing', status: 'ok', detail: `Active on ${billing.tier} until ${billing.current_period_end}; prepaid balance $${billing.prepaid_balance_usd.toFixed(2)}.` };
  }
}
