import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeOrganization, useApp } from '../../../test/harness.ts';
import { createCell } from '../../../test/support/cells.ts';
import { eventsPruneWorker } from '../../workers/events-prune.ts';
import { rejected, StreamClient, streamUrl } from '../../../test/support/stream-client.ts';

const DAY = 24 * 3600 * 1000;

describe('event retention', () => {
  const t = useApp();

  it('keeps events 7 days, then the prune worker deletes only the older ones', async () => {
    const org = await activeOrganization(t);
    const worker = eventsPruneWorker({ events: t.services.events });
    await createCell(t, org.headers, 'old');
    t.clock.advance(7 * DAY - 60_000);
    await createCell(t, org.headers, 'newer');
    assert.equal(await worker.tick(), 0, 'nothing is 7 days old yet');

    t.clock.advance(2 * 60_000);
    // cell.created of 'old', and the billing.status_changed of the harness's grant before it
    assert.equal(await worker.tick(), t.config.billing ? 2 : 1);
    const left = await t.database.db
      .selectFrom('events')
      .select(['id', 'data'])
      .where('organization_id', '=', org.organizationId)
      .execute();
    assert.deepEqual(
      left.map((r) => JSON.parse(r.data).display_name),
      ['newer'],
    );
    assert.equal(await worker.tick(), 0);

    // A retained event still works as since.
    const client = await StreamClient.ready(`${await streamUrl(t)}?since=${left[0].id}`, { headers: org.headers });
    client.close();
  });

  it('refuses a since whose event was pruned', async () => {
    const org = await activeOrganization(t);
    const url = await streamUrl(t);
    const cell = await createCell(t, org.headers, 'soon gone');
    const [event] = (await t.services.events.readAfter(0, 1000)).filter((e) => e.envelope.data.id === cell.id);
    t.clock.advance(7 * DAY + 1);
    await eventsPruneWorker({ events: t.services.events }).tick();
    const closed = await rejected(`${url}?since=${event.envelope.id}`, { headers: org.headers });
    assert.equal(closed.code, 4400);
    assert.match(closed.reason, /older than 7 days/);
  });
});
