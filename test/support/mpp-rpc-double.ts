// A local Tempo JSON-RPC node for tests (the network boundary of the MPP tempo method): a payer
// "broadcasts" a TIP-20 transferWithMemo with `transfer()`, which mines it into a receipt with the
// real event encoding; `eth_getTransactionReceipt` serves it (null for an unknown hash). Faults on
// demand: a reverted transaction, an RPC that answers errors.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeAbiParameters, encodeEventTopics, type Hex } from 'viem';
import { Abis } from 'viem/tempo';

export interface TempoTransfer {
  token: Hex;
  from?: Hex;
  to: Hex;
  /** Base units (6 decimals: micro-USD). */
  amount: bigint;
  memo: Hex;
  reverted?: boolean;
}

export interface TempoRpcDouble {
  url: string;
  /** Answer every call with a JSON-RPC error. */
  failing: boolean;
  calls: string[];
  transfer(transfer: TempoTransfer): Hex;
  close(): Promise<void>;
}

const PAYER: Hex = '0x1111111111111111111111111111111111111111';
const hex32 = (): Hex => `0x${randomBytes(32).toString('hex')}`;

function receiptOf(hash: Hex, t: TempoTransfer) {
  const blockHash = hex32();
  const from = t.from ?? PAYER;
  const topics = encodeEventTopics({
    abi: Abis.tip20,
    eventName: 'TransferWithMemo',
    args: { from, to: t.to, memo: t.memo },
  });
  return {
    blockHash,
    blockNumber: '0x10',
    contractAddress: null,
    cumulativeGasUsed: '0xc350',
    effectiveGasPrice: '0x1',
    from,
    gasUsed: '0xc350',
    logs: t.reverted
      ? []
      : [
          {
            address: t.token,
            topics,
            data: encodeAbiParameters([{ type: 'uint256' }], [t.amount]),
            blockHash,
            blockNumber: '0x10',
            transactionHash: hash,
            transactionIndex: '0x0',
            logIndex: '0x0',
            removed: false,
          },
        ],
    logsBloom: `0x${'0'.repeat(512)}`,
    status: t.reverted ? '0x0' : '0x1',
    to: t.token,
    transactionHash: hash,
    transactionIndex: '0x0',
    type: '0x2',
  };
}

export async function startTempoRpc(chainId: number): Promise<TempoRpcDouble> {
  const receipts = new Map<string, ReturnType<typeof receiptOf>>();
  const double = {
    failing: false,
    calls: [] as string[],
    transfer(transfer: TempoTransfer): Hex {
      const hash = hex32();
      receipts.set(hash, receiptOf(hash, transfer));
      return hash;
    },
  };
  const server: Server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const call = JSON.parse(text) as { id: number; method: string; params: unknown[] };
    double.calls.push(call.method);
    const answer = (body: object) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...body }));
    if (double.failing) return answer({ error: { code: -32603, message: 'node unavailable' } });
    if (call.method === 'eth_chainId') return answer({ result: `0x${chainId.toString(16)}` });
    if (call.method === 'eth_getTransactionReceipt')
      return answer({ result: receipts.get(String(call.params[0]).toLowerCase()) ?? null });
    return answer({ error: { code: -32601, message: `method ${call.method} not served by the double` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Test configuration of the MPP rail over a double: the tempo method on mainnet's chain id. */
export const MPP_TEST = {
  secret: 'mpp-test-secret-0123456789abcdefghijklmnop',
  recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' as Hex,
  token: '0x20C000000000000000000000b9537d11c60E8b50' as Hex,
  chainId: 4217,
};

export const mppEnv = (rpcUrl: string) => ({
  CELLGATE_MPP_SECRET: MPP_TEST.secret,
  CELLGATE_MPP_METHODS: JSON.stringify({ tempo: { recipient: MPP_TEST.recipient, rpc_url: rpcUrl } }),
});
