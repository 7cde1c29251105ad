// The `tempo` MPP method, charge intent, push mode (mppx's tempo charge with a `hash` credential):
// the payer sends a TIP-20 `transferWithMemo` of at least the amount to our recipient, its memo
// bound to the challenge (mppx's attribution memo: the "mpp" tag, the realm's fingerprint and a
// nonce from the challenge id), then presents the transaction hash. We read the receipt from the
// configured Tempo RPC and check it ourselves: success, the token, the recipient, the amount and
// the memo. The challenge request is built with mppx's tempo method schema.
import { Challenge } from 'mppx';
import { Methods } from 'mppx/tempo';
import {
  createPublicClient,
  formatUnits,
  getAddress,
  http,
  keccak256,
  parseEventLogs,
  stringToBytes,
  type Hex,
  type PublicClient,
} from 'viem';
import { Abis } from 'viem/tempo';
import type { TempoMethodConfig } from './mpp-config.ts';
import type { Micros } from './money.ts';

/** Calls to the Tempo RPC give up after this (the payer gets a 402 saying so). */
export const TEMPO_RPC_TIMEOUT_MS = 10_000;

const TAG = keccak256(stringToBytes('mpp')).slice(0, 10) as Hex; // 0x + 4 bytes
const MEMO_VERSION = '01';
const fingerprint = (value: string) => keccak256(stringToBytes(value)).slice(2, 22); // 10 bytes
const nonce = (challengeId: string) => keccak256(stringToBytes(challengeId)).slice(2, 16); // 7 bytes

/** The memo a payer puts on its transfer for this challenge (mppx's attribution format, anonymous client). */
export function tempoMemo(realm: string, challengeId: string): Hex {
  return `0x${TAG.slice(2)}${MEMO_VERSION}${fingerprint(realm)}${'0'.repeat(20)}${nonce(challengeId)}`;
}

function memoBinds(memo: string, realm: string, challengeId: string): boolean {
  const m = memo.toLowerCase();
  return (
    m.length === 66 &&
    m.startsWith(TAG.toLowerCase() + MEMO_VERSION) &&
    m.slice(12, 32) === fingerprint(realm) &&
    m.slice(52) === nonce(challengeId)
  );
}

/** A payment the method refused, with the reason the payer is told. */
export class MethodRefusal extends Error {}

export class TempoMethod {
  readonly name = 'tempo';
  private readonly config: TempoMethodConfig;
  private readonly client: PublicClient;

  constructor(config: TempoMethodConfig) {
    this.config = config;
    this.client = createPublicClient({
      transport: http(config.rpcUrl, { timeout: TEMPO_RPC_TIMEOUT_MS, retryCount: 0 }),
    });
  }

  /** The challenge of `micros` (6-decimal base units are micro-USD), HMAC-bound by mppx. */
  challenge(input: {
    secret: string;
    realm: string;
    micros: Micros;
    expires: string;
    description: string;
    meta: Record<string, string>;
  }) {
    return Challenge.fromMethod(Methods.charge, {
      secretKey: input.secret,
      realm: input.realm,
      expires: input.expires,
      description: input.description,
      meta: input.meta,
      request: {
        amount: formatUnits(BigInt(input.micros), this.config.decimals),
        currency: this.config.currency,
        decimals: this.config.decimals,
        recipient: this.config.recipient,
        chainId: this.config.chainId,
        supportedModes: ['push'],
      },
    });
  }

  /** What /.well-known/mpp says of this method. */
  describe() {
    return {
      method: this.name,
      intents: ['charge'],
      modes: ['push'],
      chain_id: this.config.chainId,
      currency: this.config.currency,
      decimals: this.config.decimals,
      recipient: this.config.recipient,
    };
  }

  /**
   * Verifies a `hash` credential against its (HMAC-checked) challenge: the transaction succeeded
   * and carries a TIP-20 TransferWithMemo of our currency to our recipient, of at least the amount
   * asked, whose memo is bound to this realm and challenge. Returns the proof's unique reference.
   */
  async verify(
    challenge: { id: string; realm: string; request: Record<string, unknown> },
    payload: unknown,
  ): Promise<{ reference: string; transaction: Hex }> {
    const parsed = Methods.charge.schema.credential.payload.safeParse(payload);
    if (!parsed.success) throw new MethodRefusal('the credential payload is not a tempo charge payload.');
    if (parsed.data.type !== 'hash')
      throw new MethodRefusal(
        'only hash credentials (push mode: broadcast the transfer, then send its hash) are taken.',
      );
    const hash = parsed.data.hash as Hex;
    const request = challenge.request as {
      amount?: string;
      currency?: string;
      recipient?: string;
      methodDetails?: { chainId?: number };
    };
    if (
      request.currency?.toLowerCase() !== this.config.currency.toLowerCase() ||
      request.recipient?.toLowerCase() !== this.config.recipient.toLowerCase() ||
      request.methodDetails?.chainId !== this.config.chainId
    ) {
      throw new MethodRefusal('the challenge names another currency, recipient or chain than this deployment takes.');
    }
    const asked = BigInt(request.amount ?? '0');
    let receipt;
    try {
      receipt = await this.client.getTransactionReceipt({ hash });
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      if (name === 'TransactionReceiptNotFoundError')
        throw new MethodRefusal(
          `transaction ${hash} is not on chain ${this.config.chainId} (not found or not mined yet).`,
        );
      throw new MethodRefusal(
        `the Tempo RPC did not answer (${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`,
      );
    }
    if (receipt.status !== 'success') throw new MethodRefusal(`transaction ${hash} reverted.`);
    const transfers = parseEventLogs({ abi: Abis.tip20, logs: receipt.logs, eventName: 'TransferWithMemo' });
    const ours = transfers.filter(
      (log) => getAddress(log.address) === this.config.currency && getAddress(log.args.to) === this.config.recipient,
    );
    const bound = ours.filter((log) => memoBinds(log.args.memo, challenge.realm, challenge.id));
    if (bound.length === 0) {
      throw new MethodRefusal(
        ours.length === 0
          ? 'the transaction carries no transfer of our currency to our recipient.'
          : 'the transfer memo is not bound to this challenge.',
      );
    }
    const paid = bound.reduce((sum, log) => sum + log.args.amount, 0n);
    if (paid < asked)
      throw new MethodRefusal(
        `the transfer pays ${formatUnits(paid, this.config.decimals)}, less than the ${formatUnits(asked, this.config.decimals)} asked.`,
      );
    return { reference: `tempo:${this.config.chainId}:${hash.toLowerCase()}`, transaction: hash };
  }
}
