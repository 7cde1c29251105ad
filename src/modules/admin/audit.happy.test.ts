// The operator audit log (issue 25): every operator action with who, when, what and why,
// newest first, through GET /v1/admin/audit and through the service other modules call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, bearer, useApp, verifiedOrganization, type TestApp } from '../../../test/harness.ts';
import { addDevice, heartbeat } from '../../../test/support/devices.ts';
import { BASE_PAY_TO } from '../../../test/support/billing.ts';
import { deposit, SECRET, STRANGER } from '../../../test/support/deposits.ts';
import { transact } from '../../db/transaction.ts';
import { DEFAULT_DAILY_SEND_LIMIT, DEFAULT_SEND_RATE_PER_MINUTE } from '../devices/service.ts';

interface Entry {
  id: string;
  actor: { admin_token_id: string; label: string | null };
  action: string;
  target: { type: string; id: string };
  reason: string | null;
  detail: Record<string, unknown> | null;
  created_at: string;
}

async function audit(t: TestApp, query = '') {
  const response = await t.app.inject({ url: `/v1/admin/audit${query}`, headers: admin });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { entries: Entry[]; next_cursor: string | null };
}

async function post(t: TestApp, url: string, payload: Record<string, unknown>, headers = admin) {
  const response = await t.app.inject({ method: 'POST', url, headers, payload });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function post201(t: TestApp, url: string, payload: Record<string, unknown>, headers = admin) {
  const response = await t.app.inject({ method: 'POST', url, headers, payload });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

describe('operator audit log', () => {
  const t = useApp({ env: { CELLGATE_X402_BASE_PAY_TO: BASE_PAY_TO, CELLGATE_X402_DEPOSIT_SECRET: SECRET } });

  it('records each billing action with the admin token, the clock time, the target and the reason', async () => {
    const org = await verifiedOrganization(t);
    const url = `/v1/admin/organizations/${org.organizationId}`;
    await post(t, `${url}/grant`, { tier: 'pro', months: 2, reason: 'pilot customer' });
    t.clock.advance(1_000);
    await post(t, `${url}/credits`, { amount_usd: '12.50', reason: 'goodwill' });
    t.clock.advance(1_000);
    await post(t, `${url}/suspend`, { reason: 'chargeback' });
    t.clock.advance(1_000);
    await post(t, `${url}/reinstate`, { reason: 'resolved' });
    const page = await audit(t, `?target_id=${org.organizationId}`);
    assert.deepEqual(
      page.entries.map((entry) => [entry.action, entry.reason, entry.detail]),
      [
        ['organization.reinstate', 'resolved', null],
        ['organization.suspend', 'chargeback', null],
        ['organization.credit', 'goodwill', { amount_usd: '12.50' }],
        ['organization.grant', 'pilot customer', { tier: 'pro', months: 2 }],
      ],
    );
    const [latest] = page.entries;
    assert.deepEqual(latest.actor, { admin_token_id: 'adm_bootstrap', label: 'CELLGATE_ADMIN_TOKEN' });
    assert.deepEqual(latest.target, { type: 'organization', id: org.organizationId });
    assert.equal(latest.created_at, t.clock.now().toISOString());
    assert.match(latest.id, /^aud_/);
  });

  it('names a CLI-created admin token by its id and label', async () => {
    const token = await t.services.admin.createToken('night shift');
    const device = await addDevice(t);
    await post(t, `/v1/admin/devices/${device.id}/rotate-key`, { reason: 'phone stolen' }, bearer(token.token));
    const [entry] = (await audit(t, `?target_id=${device.id}`)).entries;
    assert.deepEqual(
      [entry.actor, entry.action, entry.target, entry.reason],
      [
        { admin_token_id: token.id, label: 'night shift' },
        'device.rotate_key',
        { type: 'device', id: device.id },
        'phone stolen',
      ],
    );
  });

  it('records a key rotation without a body, with no reason', async () => {
    const device = await addDevice(t);
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/admin/devices/${device.id}/rotate-key`,
      headers: admin,
    });
    assert.equal(response.statusCode, 200, response.body);
    const [entry] = (await audit(t, `?target_id=${device.id}`)).entries;
    assert.deepEqual([entry.action, entry.reason], ['device.rotate_key', null]);
  });

  it('records the assignment of a held deposit', async () => {
    const org = await verifiedOrganization(t);
    const held = (await deposit(t, { from: STRANGER, amount: '5000000' })).json();
    await post(t, `/v1/admin/deposits/${held.id}/assign`, {
      organization_id: org.organizationId,
      reason: 'customer mailed the tx hash',
    });
    const [entry] = (await audit(t, `?target_id=${held.id}`)).entries;
    assert.deepEqual(
      [entry.action, entry.target, entry.reason, entry.detail],
      [
        'deposit.assign',
        { type: 'deposit', id: held.id },
        'customer mailed the tx hash',
        { organization_id: org.organizationId },
      ],
    );
  });

  it('records the inventory: a phone added, changed and removed, each with what it was', async () => {
    const device = await addDevice(t, { label: 'rack 1 slot 4' });
    t.clock.advance(1_000);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/admin/devices/${device.id}`,
      headers: admin,
      payload: { label: 'rack 2 slot 1', send_rate_per_minute: 10 },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    t.clock.advance(1_000);
    const removed = await t.app.inject({ method: 'DELETE', url: `/v1/admin/devices/${device.id}`, headers: admin });
    assert.equal(removed.statusCode, 204, removed.body);
    const { entries } = await audit(t, `?target_id=${device.id}`);
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.target.type, entry.reason, entry.detail]),
      [
        ['device.delete', 'device', null, { phone_number: device.phoneNumber }],
        ['device.update', 'device', null, { label: 'rack 2 slot 1', send_rate_per_minute: 10 }],
        [
          'device.create',
          'device',
          null,
          {
            phone_number: device.phoneNumber,
            label: 'rack 1 slot 4',
            send_rate_per_minute: DEFAULT_SEND_RATE_PER_MINUTE,
            daily_send_limit: DEFAULT_DAILY_SEND_LIMIT,
          },
        ],
      ],
    );
    assert.ok(entries.every((entry) => entry.actor.admin_token_id === 'adm_bootstrap'));
  });

  it("records each change of an operator webhook endpoint, never its secret, and not an organization's", async () => {
    const created = await post201(t, '/v1/admin/webhooks', {
      client_id: 'audit-pager',
      url: 'https://ops.example.com/hooks',
      event_types: ['device.battery_low'],
    });
    const url = `/v1/admin/webhooks/${created.id}`;
    const patched = await t.app.inject({ method: 'PATCH', url, headers: admin, payload: { description: 'pager' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const rotated = await post(t, `${url}/rotate-secret`, {});
    // A delivery to retry: a phone's battery runs low.
    const device = await addDevice(t);
    await heartbeat(t, device.headers, { battery_pct: 9, charging: false });
    const [delivery] = (await t.app.inject({ url: `${url}/deliveries`, headers: admin })).json().deliveries;
    const retried = await t.app.inject({
      method: 'POST',
      url: `${url}/deliveries/${delivery.id}/retry`,
      headers: admin,
    });
    assert.equal(retried.statusCode, 202, retried.body);
    assert.equal((await t.app.inject({ method: 'DELETE', url, headers: admin })).statusCode, 204);

    const { entries } = await audit(t, `?target_id=${created.id}`);
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.target.type, entry.detail]),
      [
        ['webhook.delete', 'webhook', { url: 'https://ops.example.com/hooks' }],
        ['webhook.retry_delivery', 'webhook', { delivery_id: delivery.id }],
        ['webhook.rotate_secret', 'webhook', null],
        ['webhook.update', 'webhook', { description: 'pager' }],
        [
          'webhook.create',
          'webhook',
          { url: 'https://ops.example.com/hooks', event_types: ['device.battery_low'], enabled: true },
        ],
      ],
    );
    const logged = JSON.stringify(entries);
    for (const secret of [created.secret, rotated.secret]) assert.ok(!logged.includes(secret), 'no secret in the log');

    const org = await verifiedOrganization(t);
    const mine = await post201(
      t,
      '/v1/webhooks',
      { client_id: 'org-hook', url: 'https://org.example.com/hooks' },
      org.headers,
    );
    assert.deepEqual((await audit(t, `?target_id=${mine.id}`)).entries, []);
  });

  it('pages newest first with a cursor', async () => {
    const first = await audit(t, '?limit=2');
    assert.equal(first.entries.length, 2);
    assert.ok(first.next_cursor);
    const second = await audit(t, `?limit=2&cursor=${first.next_cursor}`);
    const ids = [...first.entries, ...second.entries].map((entry) => entry.id);
    assert.deepEqual(ids, [...ids].sort().reverse());
    assert.equal(new Set(ids).size, 4);
  });

  it('lets other modules record in their own transaction, which a rollback takes back', async () => {
    const { audit: log } = t.services;
    await transact(t.database.db, (tx) =>
      log.recordOperatorAction(tx, {
        actor: { tokenId: 'adm_bootstrap' },
        action: 'device.pause',
        targetType: 'device',
        targetId: 'dev_console',
        reason: 'from the console',
      }),
    );
    await assert.rejects(
      transact(t.database.db, async (tx) => {
        await log.recordOperatorAction(tx, {
          actor: { tokenId: 'adm_bootstrap' },
          action: 'device.pause',
          targetType: 'device',
          targetId: 'dev_console',
          reason: 'rolled back',
        });
        throw new Error('abort');
      }),
    );
    const { entries } = await log.list({ target_id: 'dev_console' });
    assert.deepEqual(
      entries.map((entry) => entry.reason),
      ['from the console'],
    );
  });
});
