// A container listens on CELLGATE_HOST=0.0.0.0; without CELLGATE_BASE_URL its base URL is
// http://0.0.0.0:8080, not loopback, so the built-in card page is off and Stripe is not set: the
// first cell's 402 says why no card is offered and what the operator sets to fix it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../test/harness.ts';
import { cardOffCause } from './payment-required.ts';
import { loadConfig } from '../../config.ts';

const createCell = (t: ReturnType<typeof useApp>, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: '/v1/cells', headers, payload: { display_name: 'Line' } });

describe('the 402 when the card rail is off', () => {
  const t = useApp({ env: { CELLGATE_HOST: '0.0.0.0', CELLGATE_BASE_URL: '', CELLGATE_CARD_PROCESSOR: '' } });

  it('names the cause (a base URL that is not loopback, no Stripe) and the fix (CELLGATE_BASE_URL)', async () => {
    assert.equal(t.config.baseUrl, 'http://0.0.0.0:8080');
    const org = await verifiedOrganization(t);
    const refused = await createCell(t, org.headers);
    assert.equal(refused.statusCode, 402, refused.body);
    const problem = refused.json();
    assert.equal(problem.code, 'payment_required');
    assert.ok(!problem.payment.rails.includes('card_processor'));
    assert.equal(problem.payment.checkout_url, undefined);
    assert.match(
      problem.detail,
      /Card payments are off on this deployment: its base URL, http:\/\/0\.0\.0\.0:8080, is not a loopback address and Stripe is not configured/,
    );
    assert.match(problem.detail, /CELLGATE_HOST=0\.0\.0\.0 without CELLGATE_BASE_URL/);
    assert.match(problem.detail, /set CELLGATE_BASE_URL to the service's public https URL/);
  });
});

describe('the 402 when a card processor runs', () => {
  const t = useApp();

  it('says nothing of card payments being off', async () => {
    const org = await verifiedOrganization(t);
    const refused = await createCell(t, org.headers);
    assert.equal(refused.statusCode, 402, refused.body);
    assert.ok(refused.json().payment.rails.includes('card_processor'));
    assert.doesNotMatch(refused.json().detail, /Card payments are off/);
  });
});

describe('cardOffCause', () => {
  it('tells an explicit CELLGATE_CARD_PROCESSOR=off apart from the default of a public base URL', () => {
    const explicit = loadConfig({ CELLGATE_BASE_URL: 'http://localhost:8080', CELLGATE_CARD_PROCESSOR: 'off' });
    assert.match(
      cardOffCause(explicit) ?? '',
      /^Card payments are off on this deployment \(CELLGATE_CARD_PROCESSOR=off\)/,
    );
    assert.equal(cardOffCause(loadConfig({ CELLGATE_BASE_URL: 'http://localhost:8080' })), null);
  });
});
