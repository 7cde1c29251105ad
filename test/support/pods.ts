// Test helpers for pods, drafts, lists, ignore lists and cycle jobs: an organization with several
// active cells, a pod of them, JSON calls, and running the cycle worker until a job ends.
import type { InjectOptions } from 'fastify';
import { activeOrganization, type TestApp } from '../harness.ts';
import { activeLine, type Line } from './messages.ts';

export type Org = Line['org'];

/** `count` active lines (cells on their own devices) of one new organization (or `org`). */
export async function lines(
  t: TestApp,
  count: number,
  deviceBody: Record<string, unknown> = {},
  org?: Org,
): Promise<Line[]> {
  const owner = org ?? (await activeOrganization(t));
  const out: Line[] = [];
  for (let i = 0; i < count; i++) out.push(await activeLine(t, deviceBody, owner));
  return out;
}

/** An authenticated JSON call of `org`; the response. */
export function call(
  t: TestApp,
  org: Org,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method,
    url,
    headers: { ...org.headers, ...headers },
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

/** A call that must answer `status`; its JSON body. */
export async function ok(
  t: TestApp,
  org: Org,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
  status = 200,
  headers: Record<string, string> = {},
) {
  const response = await call(t, org, method, url, payload, headers);
  if (response.statusCode !== status)
    throw new Error(`${method} ${url}: expected ${status}, got ${response.statusCode} ${response.body}`);
  return response.statusCode === 204 ? null : response.json();
}

let clientIds = 0;
export const clientId = (label = 'test') => `${label}-${process.pid}-${++clientIds}`;

/** Creates a pod of these cells; the pod view. */
export function createPod(t: TestApp, org: Org, cellIds: string[], name = 'Outreach') {
  return ok(t, org, 'POST', '/v1/pods', { name, client_id: clientId('pod'), cell_ids: cellIds }, 201);
}

/** An organization with `count` active cells in one pod. */
export async function podWithLines(t: TestApp, count: number, deviceBody: Record<string, unknown> = {}) {
  const podLines = await lines(t, count, deviceBody);
  const org = podLines[0].org;
  const pod = await createPod(
    t,
    org,
    podLines.map((line) => line.cell.id),
  );
  return { org, lines: podLines, pod };
}

/** Runs the cycle worker (as the loop would) until the job is no longer queued or running; the job. */
export async function runJob(
  t: TestApp,
  org: Org,
  podId: string,
  jobId: string,
  options: { ticks?: number; between?: () => Promise<void> } = {},
) {
  for (let i = 0; i < (options.ticks ?? 50); i++) {
    await t.services.cycleWorker.tick();
    const job = await ok(t, org, 'GET', `/v1/pods/${podId}/jobs/${jobId}`);
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await options.between?.();
  }
  throw new Error(`job ${jobId} did not end`);
}

/** Outbound messages per sending cell, and per recipient, straight from the database (test checks). */
export async function outboundByCellAndRecipient(t: TestApp, organizationId: string) {
  const rows = await t.database.db
    .selectFrom('messages')
    .select(['cell_id', 'to_number'])
    .where('organization_id', '=', organizationId)
    .where('direction', '=', 'outbound')
    .execute();
  const perCell = new Map<string, number>();
  const perRecipient = new Map<string, string[]>();
  for (const row of rows) {
    perCell.set(row.cell_id, (perCell.get(row.cell_id) ?? 0) + 1);
    perRecipient.set(row.to_number, [...(perRecipient.get(row.to_number) ?? []), row.cell_id]);
  }
  return { total: rows.length, perCell, perRecipient };
}

/** `count` distinct valid US numbers that no test device carries (+1 212 555 xxxx). */
export function recipients(count: number, start = 0): string[] {
  return Array.from({ length: count }, (_, i) => `+1212555${String(start + i).padStart(4, '0')}`);
}
