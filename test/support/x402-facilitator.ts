// A local x402 facilitator (the network boundary of the x402 rail): /verify and /settle really
// check the EIP-3009 TransferWithAuthorization that an x402 client signed (EIP-712 signature of
// the payer, recipient, amount, validity window, nonce not used before); settling "executes" the
// transfer by recording its nonce. Faults on demand: invalid, failing settlement, hanging, and
// `settles_anything`: a careless facilitator that verifies and settles whatever it is sent (any
// network, a used nonce, a Solana transaction it does not look into), for the service's own
// once-only rule to be tested alone.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddress, verifyTypedData, type Hex } from 'viem';

type Mode = 'ok' | 'settle_fails' | 'hang' | 'settles_anything';

interface Authorization {
  from: Hex;
  to: Hex;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

const TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export interface FacilitatorDouble {
  url: string;
  mode: Mode;
  calls: { path: string; body: Record<string, unknown> }[];
  /** Nonces settled: a transfer happened for each. */
  settled: Set<string>;
  close(): Promise<void>;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- JSON from the wire */
async function check(
  body: any,
  settled: Set<string>,
): Promise<{ isValid: boolean; invalidReason?: string; payer?: string }> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  const requirements = body.paymentRequirements;
  const payload = body.paymentPayload?.payload as { signature?: Hex; authorization?: Authorization } | undefined;
  const auth = payload?.authorization;
  if (!auth || !payload?.signature) return { isValid: false, invalidReason: 'invalid_payload' };
  const payer = auth.from;
  if (requirements.scheme !== 'exact' || !String(requirements.network).startsWith('eip155:'))
    return { isValid: false, invalidReason: 'unsupported_scheme', payer };
  const chainId = Number(String(requirements.network).slice('eip155:'.length));
  const valid = await verifyTypedData({
    address: payer,
    domain: {
      name: requirements.extra?.name,
      version: requirements.extra?.version,
      chainId,
      verifyingContract: getAddress(requirements.asset),
    },
    types: TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: auth.from,
      to: auth.to,
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce,
    },
    signature: payload.signature,
  }).catch(() => false);
  if (!valid) return { isValid: false, invalidReason: 'invalid_exact_evm_payload_signature', payer };
  if (getAddress(auth.to) !== getAddress(requirements.payTo))
    return { isValid: false, invalidReason: 'invalid_exact_evm_payload_recipient_mismatch', payer };
  if (BigInt(auth.value) < BigInt(requirements.amount))
    return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_value', payer };
  // The chain's time, which is real time (the client signs its window from it).
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (BigInt(auth.validBefore) < now || BigInt(auth.validAfter) > now)
    return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_valid_before', payer };
  if (settled.has(auth.nonce))
    return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_nonce_used', payer };
  return { isValid: true, payer };
}

export async function startFacilitator(): Promise<FacilitatorDouble> {
  const double: Omit<FacilitatorDouble, 'url' | 'close'> = { mode: 'ok', calls: [], settled: new Set() };
  const server: Server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const body = text ? JSON.parse(text) : {};
    const path = request.url ?? '';
    double.calls.push({ path, body });
    if (double.mode === 'hang') return; // never answers: the client's timeout must act
    const json = (status: number, value: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (path === '/supported')
      return json(200, {
        kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }],
        extensions: [],
        signers: {},
      });
    if (double.mode === 'settles_anything') {
      const payer = body.paymentPayload?.payload?.authorization?.from ?? 'solana-payer';
      if (path === '/verify') return json(200, { isValid: true, payer });
      if (path === '/settle')
        return json(200, {
          success: true,
          payer,
          transaction: `tx-${createHash('sha256').update(text).digest('hex')}`,
          network: body.paymentRequirements?.network,
        });
    }
    const verdict = await check(body, double.settled);
    if (path === '/verify') return json(200, verdict);
    if (path === '/settle') {
      const network = body.paymentRequirements?.network;
      if (!verdict.isValid)
        return json(200, {
          success: false,
          errorReason: verdict.invalidReason,
          payer: verdict.payer,
          transaction: '',
          network,
        });
      if (double.mode === 'settle_fails')
        return json(200, {
          success: false,
          errorReason: 'transaction_failed',
          payer: verdict.payer,
          transaction: '',
          network,
        });
      const nonce = body.paymentPayload.payload.authorization.nonce as string;
      double.settled.add(nonce);
      return json(200, {
        success: true,
        payer: verdict.payer,
        transaction: `0x${createHash('sha256').update(nonce).digest('hex')}`,
        network,
      });
    }
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * A serialized Solana transaction as an x402 SVM client sends it: the fee payer's slot empty (the
 * facilitator signs it), the payer's ed25519 signature over the message (a fresh blockhash each).
 */
export function solanaTransaction(): { transaction: string; message: Buffer; payerSignature: Buffer } {
  const payer = generateKeyPairSync('ed25519');
  const raw = (key: KeyObject) => key.export({ format: 'der', type: 'spki' }).subarray(-32);
  const feePayer = raw(generateKeyPairSync('ed25519').publicKey);
  // Legacy message: header (2 signers, 0 read-only signed, 1 read-only unsigned), 3 keys, blockhash, no instructions.
  const message = Buffer.concat([
    Buffer.from([2, 0, 1, 3]),
    feePayer,
    raw(payer.publicKey),
    randomBytes(32),
    randomBytes(32),
    Buffer.from([0]),
  ]);
  const payerSignature = sign(null, message, payer.privateKey);
  return {
    transaction: Buffer.concat([Buffer.from([2]), Buffer.alloc(64), payerSignature, message]).toString('base64'),
    message,
    payerSignature,
  };
}
