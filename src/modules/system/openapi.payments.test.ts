// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// Payment discovery: mppx's discovery module reads the served /openapi.json (x-service-info at the
// top, x-payment-info on each operation that can answer 402) and finds every paid operation,
// with an offer per configured rail; /.well-known/mpp is a documented operation.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscoveryDocument, PaymentInfo, ServiceInfo, validate } from 'mppx/discovery';
import { startApp, type TestApp, useApp } from '../../../test/harness.ts';
import { BOTH_NETWORKS } from '../../../test/support/billing.ts';
import { MPP_TEST, mppEnv } from '../../../test/support/mpp-rpc-double.ts';

const PAID = [
  'POST /v1/billing/mpp/pay',
  'POST /v1/billing/x402/pay',
  'POST /v1/cells',
  'POST /v1/cells/{cell_id}/drafts/{draft_id}/send',
  'POST /v1/cells/{cell_id}/messages/send',
  'POST /v1/cells/{cell_id}/messages/{message_id}/reply',
  'POST /v1/pods/{id}/messages/cycle',
  'POST /v1/pods/{pod_id}/drafts/{draft_id}/send',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed OpenAPI document is walked freely
type Doc = any;

/** mppx's validation: no error and no warning (a draft's send takes a body too: send_at, send_now). */
function assertValid(doc: Doc) {
  assert.deepEqual(
    validate(doc).map((issue) => `${issue.severity} ${issue.path}: ${issue.message}`),
    [],
  );
}

/** What mppx finds in a document: the operations with x-payment-info, each with its parsed offers. */
function discovered(doc: Doc) {
  const parsed = DiscoveryDocument.parse(doc);
  const found = new Map<string, { offers: Record<string, unknown>[] }>();
  for (const [path, item] of Object.entries(parsed.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const info = (operation as { 'x-payment-info'?: unknown } | undefined)?.['x-payment-info'];
      if (info)
        found.set(`${method.toUpperCase()} ${path}`, PaymentInfo.parse(info) as { offers: Record<string, unknown>[] });
    }
  }
  return found;
}

async function documentOf(t: TestApp): Promise<Doc> {
  const response = await t.app.inject({ url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  return response.json();
}

describe('payment discovery with MPP and x402 on Base and Solana configured', () => {
  const t = useApp({
    env: { CELLGATE_BASE_URL: 'https://api.cellgate.test', ...BOTH_NETWORKS, ...mppEnv('http://127.0.0.1:9/rpc') },
  });
  let doc: Doc;
  before(async () => {
    doc = await documentOf(t);
  });

  it('passes mppx discovery validation', () => {
    assertValid(doc);
  });

  it('describes the service at the top', () => {
    const info = ServiceInfo.parse(doc['x-service-info']);
    assert.equal(info.docs?.apiReference, 'https://api.cellgate.test/docs');
    assert.equal(info.docs?.homepage, 'https://api.cellgate.test');
    assert.ok(info.categories?.includes('messaging'));
  });

  it('marks exactly the operations that can answer 402, each documenting its 402', () => {
    const found = discovered(doc);
    assert.deepEqual([...found.keys()].sort(), PAID);
    for (const key of PAID) {
      const [method, path] = key.split(' ');
      assert.ok(doc.paths[path][method.toLowerCase()].responses['402'], `${key} documents its 402`);
    }
  });

  it('offers an action on every configured rail, with a dynamic amount', () => {
    const { offers } = discovered(doc).get('POST /v1/cells/{cell_id}/messages/send') as {
      offers: Record<string, unknown>[];
    };
    assert.deepEqual(
      offers.map((o) => [o.method, o.intent]),
      [
        ['tempo', 'charge'],
        ['x402', 'exact'],
        ['x402', 'exact'],
      ],
    );
    assert.equal(offers[0].currency, MPP_TEST.token);
    assert.equal(offers[0].chain_id, MPP_TEST.chainId);
    assert.deepEqual(
      offers.slice(1).map((o) => o.network),
      ['eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
    );
    assert.equal(offers[1].currency, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    for (const offer of offers) {
      assert.equal(offer.amount, null, 'the price depends on the organization');
      assert.match(String(offer.description), /top_up/);
    }
  });

  it('offers each pay route on its own rail only', () => {
    const found = discovered(doc);
    assert.deepEqual(
      found.get('POST /v1/billing/mpp/pay')?.offers.map((o) => o.method),
      ['tempo'],
    );
    assert.deepEqual(
      found.get('POST /v1/billing/x402/pay')?.offers.map((o) => o.method),
      ['x402', 'x402'],
    );
  });

  it('documents GET /.well-known/mpp, and its example is what the route answers', async () => {
    const operation = doc.paths['/.well-known/mpp'].get;
    assert.equal(operation.operationId, 'getMppDiscovery');
    assert.deepEqual(operation.security, []);
    assert.equal(
      operation.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/MppDiscovery',
    );
    assert.ok(operation.responses['404']);
    const served = (await t.app.inject({ url: '/.well-known/mpp' })).json();
    const schema = doc.components.schemas.MppDiscovery;
    assert.deepEqual(Object.keys(served).sort(), Object.keys(schema.properties).sort());
    assert.deepEqual(
      Object.keys(served.methods[0]).sort(),
      Object.keys(schema.properties.methods.items.properties).sort(),
    );
    assert.equal(served.methods[0].recipient, MPP_TEST.recipient);
  });
});

describe('payment discovery with only the card rail', () => {
  it('marks the actions as paid in USD without a method, and the pay routes of rails not configured not at all', async () => {
    const t = await startApp();
    try {
      const doc = await documentOf(t);
      assertValid(doc);
      const found = discovered(doc);
      assert.deepEqual(
        [...found.keys()].sort(),
        PAID.filter((key) => !key.includes('/billing/')),
      );
      assert.deepEqual(found.get('POST /v1/cells')?.offers, [
        {
          amount: null,
          currency: 'USD',
          description: found.get('POST /v1/cells')?.offers[0].description,
          intent: 'charge',
        },
      ]);
      assert.equal(doc.paths['/v1/billing/mpp/pay'].post['x-payment-info'], undefined);
      assert.ok(doc.paths['/.well-known/mpp'].get, 'documented even where MPP is off (it answers 404 there)');
    } finally {
      await t.close();
    }
  });
});

describe('payment discovery with billing off', () => {
  it('marks no operation as paid', async () => {
    const t = await startApp({ env: { CELLGATE_BILLING: 'off' } });
    try {
      const doc = await documentOf(t);
      assert.equal(discovered(doc).size, 0);
      assert.ok(doc['x-service-info']);
    } finally {
      await t.close();
    }
  });
});
