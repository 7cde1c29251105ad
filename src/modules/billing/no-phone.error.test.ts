// Paying for a cell while no phone is free takes the money and leaves the cell provisioning: the
// 402 that asks for that payment (a plan's setup, one more cell) says so before it is paid, and
// the console's create-cell page says it before anything is typed. With a phone free, neither does.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, verifiedOrganization } from '../../../test/harness.ts';
import { grant } from '../../../test/support/billing.ts';
import { createCell } from '../../../test/support/cells.ts';
import { signInConsole } from '../../../test/support/console.ts';
import { textOf } from '../../../test/support/console-operator.ts';
import { addDevice } from '../../../test/support/devices.ts';

const NO_PHONE = /No phone is free now: once paid, the cell is created but waits in provisioning/;

describe('a 402 that pays for a cell while no phone is free', () => {
  const t = useApp();
  const create = (headers: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/v1/cells', headers, payload: { display_name: 'Line' } });

  it("warns in the first cell's setup 402, and the console's create-cell page warns too", async () => {
    const org = await verifiedOrganization(t);
    const refused = await create(org.headers);
    assert.equal(refused.statusCode, 402);
    assert.equal(refused.json().payment.intent, 'setup');
    assert.match(refused.json().detail, NO_PHONE);
    const { cookie } = await signInConsole(t, org.email);
    const page = await t.app.inject({ url: '/console/cells/new', headers: { cookie } });
    assert.match(textOf(page.body), /No phone is free now: a cell you create \(and pay for\) waits in provisioning/);
  });

  it('warns in the one-more-cell 402 once the only phone is taken, and not while one is free', async () => {
    const org = await verifiedOrganization(t);
    await grant(t, org.organizationId, 'starter');
    await addDevice(t);
    const first = await createCell(t, org.headers);
    assert.equal(first.status, 'active', 'the first cell took the free phone');
    const refused = await create(org.headers);
    assert.equal(refused.statusCode, 402);
    assert.equal(refused.json().payment.intent, 'create_cell');
    assert.match(refused.json().detail, NO_PHONE);

    await addDevice(t);
    const free = await create(org.headers);
    assert.equal(free.statusCode, 402);
    assert.doesNotMatch(free.json().detail, /No phone is free/);
    const { cookie } = await signInConsole(t, org.email);
    const page = await t.app.inject({ url: '/console/cells/new', headers: { cookie } });
    assert.doesNotMatch(textOf(page.body), /No phone is free/);
  });
});
