// The MPP rail (the "Payment" HTTP authentication scheme, draft-httpauth-payment): paying an intent
// answers 402 with a `WWW-Authenticate: Payment` challenge per configured method, whose id is an
// HMAC (CELLGATE_MPP_SECRET, computed by mppx) over realm, method, intent, request (amount,
// currency, recipient, chain), expiry and opaque data (organization, payment, billing intent).
// Each challenge is a pending `mpp` payment. A retry carrying `Authorization: Payment <credential>`
// is checked here (HMAC intact, not expired by our clock, method configured), its proof verified by
// the method, and then, in one transaction, the credential is recorded (its challenge id and its
// proof are unique in the database, so it credits once across processes), the payment completed
// and its intent applied. The answer carries `Payment-Receipt`. mppx provides the wire formats
// (challenge, credential, receipt) and the tempo method's schemas; expiry is ours, by our clock.
import { Challenge, Credential, PaymentRequest, Receipt } from 'mppx';
import { transact } from '../../db/transaction.ts';
import { ApiError } from '../../lib/errors.ts';
import { dollars, micros } from './money.ts';
import { mppRealm, type MppConfig } from './mpp-config.ts';
import { MPP_CHALLENGE_SECONDS, type MppPort } from './mpp-http.ts';
import { MethodRefusal, TempoMethod } from './mpp-tempo.ts';
import { INTENTS, type Intent } from './lifecycle.ts';
import { billingOff, type PaymentDetails } from './offers.ts';
import type { PaymentsTable } from './tables.ts';
import { pendingPayment, pricedOf, unreadable, type RailDeps } from './payments.ts';

/** The opaque data a challenge carries (HMAC-bound): base64url JSON on the wire. */
export function metaOf(challenge: Challenge.Challenge): Record<string, string> {
  if (challenge.meta) return challenge.meta;
  try {
    const value = challenge.opaque ? (PaymentRequest.deserialize(challenge.opaque) as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

export class MppRail implements MppPort {
  private readonly deps: RailDeps & {
    enabled: boolean;
    config: MppConfig;
    baseUrl: string;
  };
  private readonly methods: TempoMethod[];

  constructor(deps: MppRail['deps']) {
    this.deps = deps;
    this.methods = deps.config.methods.tempo ? [new TempoMethod(deps.config.methods.tempo)] : [];
  }

  get realm(): string {
    return mppRealm(this.deps.baseUrl);
  }

  /** GET /.well-known/mpp. */
  discovery() {
    return {
      realm: this.realm,
      scheme: 'Payment',
      methods: this.methods.map((m) => m.describe()),
      intents: [...INTENTS],
      currencies: ['USD'],
      pay_endpoint: {
        method: 'POST',
        url: `${this.deps.baseUrl}/v1/billing/mpp/pay`,
        body: {
          intent: INTENTS.join(' | '),
          tier: 'optional',
          cell_id: 'optional',
          amount_usd: 'for top_up; optional starting balance for setup',
        },
      },
      challenge_ttl_seconds: MPP_CHALLENGE_SECONDS,
      credential_header: 'Authorization',
    };
  }

  /**
   * The 402 of paying an intent over MPP: opens a pending mpp payment of its amount and answers
   * its PaymentDetails with one `WWW-Authenticate: Payment` challenge per configured method.
   */
  async required(organizationId: string, details: PaymentDetails, detail: string): Promise<ApiError> {
    const { secret } = this.deps.config;
    const priced = pricedOf(details);
    const { payment } = pendingPayment(this.deps.clock, organizationId, 'mpp', priced, MPP_CHALLENGE_SECONDS * 1000);
    const expires = payment.expires_at;
    await this.deps.repo.insertPayment(payment);
    const meta = { organization_id: organizationId, payment_id: payment.id, intent: details.intent };
    const challenges = this.methods.map((method) =>
      method.challenge({
        secret,
        realm: this.realm,
        micros: priced.micros,
        expires,
        description: `Cellgate ${details.intent} ${details.amount_usd} USD`,
        meta,
      }),
    );
    return new ApiError('payment_required', detail, {
      extensions: {
        payment: {
          ...details,
          mpp: {
            ...details.mpp,
            payment_id: payment.id,
            challenge_ids: challenges.map((c) => c.id),
            expires_at: expires,
          },
        },
      },
      headers: { 'WWW-Authenticate': challenges.map((c) => Challenge.serialize(c)).join(', ') },
    });
  }

  /** A refused credential: 402 with the reason and, when its challenge was ours, a fresh one for the same payment. */
  private async refused(reason: string, payment?: PaymentsTable): Promise<ApiError> {
    const detail = `The MPP credential was refused: ${reason}`;
    if (!payment) return new ApiError('payment_required', detail);
    const details = this.deps.offers.paymentRequiredFor(detail, payment);
    return this.required(payment.organization_id, details.extensions?.payment as PaymentDetails, detail);
  }

  /**
   * Verifies `Authorization: Payment <credential>` and credits it once. `agentOrganization` is the
   * organization of the API key sent beside it (Payment-Authorization), if any; the challenge names
   * its own organization, bound by the HMAC. Throws 402 (refused, nothing credited), 409 (used).
   */
  async pay(
    header: string,
    body: { intent: Intent },
    agentOrganization?: string,
  ): Promise<{ payment: PaymentsTable; receipt: string }> {
    if (!this.deps.enabled) throw billingOff();
    const { secret } = this.deps.config;
    let credential: Credential.Credential;
    try {
      credential = Credential.deserialize(header);
    } catch {
      throw unreadable(
        'Authorization',
        'invalid_format',
        'Authorization must be "Payment <base64url credential>" echoing a challenge of this server.',
        'The Payment credential is not a base64url JSON credential.',
      );
    }
    const challenge = credential.challenge;
    if (challenge.realm !== this.realm || !Challenge.verify(challenge, { secretKey: secret })) {
      throw await this.refused(
        'the challenge was not issued by this server or was altered; ask for a new one with your API key.',
      );
    }
    const meta = metaOf(challenge);
    const payment = meta.payment_id ? await this.deps.repo.payment(meta.payment_id) : undefined;
    if (!payment || payment.rail !== 'mpp' || payment.organization_id !== meta.organization_id)
      throw await this.refused('the challenge names no MPP payment of this server.');
    if (agentOrganization !== undefined && agentOrganization !== payment.organization_id) {
      throw new ApiError('forbidden', 'This credential pays for another organization.');
    }
    if (payment.status === 'succeeded') throw this.used(payment);
    if (!challenge.expires || Date.parse(challenge.expires) <= this.deps.clock.now().getTime())
      throw await this.refused(`the challenge expired at ${challenge.expires ?? '(none)'}.`, payment);
    const method = this.methods.find((m) => m.name === challenge.method);
    if (!method || challenge.intent !== 'charge') {
      throw await this.refused(
        `method ${challenge.method} (${challenge.intent}) is not taken here; accepted: ${this.methods.map((m) => `${m.name} (charge)`).join(', ')}.`,
        payment,
      );
    }
    if (body.intent !== payment.intent)
      throw await this.refused(`the challenge pays ${payment.intent}, not ${body.intent}.`, payment);
    if (BigInt(String((challenge.request as { amount?: unknown }).amount ?? '0')) < BigInt(payment.amount_micros)) {
      throw await this.refused('the challenge asks less than the payment.', payment);
    }
    let proof: { reference: string; transaction: string };
    try {
      proof = await method.verify(challenge, credential.payload);
    } catch (error) {
      if (error instanceof MethodRefusal) throw await this.refused(error.message, payment);
      throw error;
    }
    const nowIso = this.deps.clock.now().toISOString();
    const credited = await transact(this.deps.repo.db, async (tx) => {
      const row = {
        challenge_id: challenge.id,
        reference: proof.reference,
        method: method.name,
        payment_id: payment.id,
        organization_id: payment.organization_id,
        created_at: nowIso,
      };
      if (!(await this.deps.repo.recordMppCredential(tx, row))) return false;
      return this.deps.crediting.complete(tx, payment, nowIso);
    });
    if (!credited) throw this.used(payment);
    const receipt = Receipt.serialize(
      Receipt.from({
        method: method.name,
        reference: proof.transaction,
        status: 'success',
        timestamp: nowIso,
        externalId: payment.id,
      }),
    );
    return { payment: { ...payment, status: 'succeeded', completed_at: nowIso }, receipt };
  }

  private used(payment: PaymentsTable): ApiError {
    return new ApiError(
      'conflict',
      `This MPP credential (or its transaction) was already used: payment ${payment.id} of ${dollars(micros(payment.amount_micros))} is credited once. Ask for a new challenge to pay again.`,
    );
  }
}
