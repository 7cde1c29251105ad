// @database-independent (scripts/test.ts: the PostgreSQL run leaves this file to the SQLite runs)
// The table-ownership rule (docs/decisions.md, "Who reads whose tables"), enforced: a module's
// repositories write only the tables its tables.ts declares, and read another module's tables only
// where READ_EXCEPTIONS names the file and the table with a reason. Everything else goes through
// the owner's service (a build() dependency or a port wired in src/app.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/**
 * The only cross-module reads allowed, per repository file and table: read models that show
 * several modules' rows at once and belong to none ('any': the whole file is the read model), and
 * joins that keep a hot query to one statement (the exact number of statements that name the
 * table, so a new plain read beside an allowed join fails too). Fewer than listed fails as well:
 * the list stays the truth.
 */
const READ_EXCEPTIONS: Record<string, { tables: Record<string, number | 'any'>; why: string }> = {
  'src/modules/metrics/repository.ts': {
    tables: { messages: 'any', devices: 'any', device_sims: 'any', webhook_deliveries: 'any', ledger_entries: 'any' },
    why: 'read model: the /metrics gauges, grouped counts over the whole service in one scrape',
  },
  'src/modules/console/operator/repository.ts': {
    tables: {
      devices: 'any',
      cells: 'any',
      organizations: 'any',
      messages: 'any',
      ledger_entries: 'any',
    },
    why: "read model: the operator console's read-only fleet and organization pages (one grouped read each)",
  },
  'src/modules/codes/repository.ts': {
    tables: { messages: 'any' },
    why: 'read model: the codes module has no table; its codes are the code columns of inbound messages (partial index)',
  },
  'src/modules/cells/repository.ts': {
    tables: { devices: 4, device_sims: 1, pods: 1 },
    why: "join: the cell view and the status counts carry the phone's presence and capabilities (a second SIM line's cell finds its phone through its line), a batch send its pod's quiet hours, in the one statement each (every send runs them)",
  },
  'src/modules/devices/repository.ts': {
    tables: { cells: 1 },
    why: "join: a phone's assignment (its cell's owner and status) is read on every device poll",
  },
  'src/modules/messages/repository.ts': {
    tables: { cells: 1 },
    why: 'join: messages carry no organization; the agent status counts filter them by their cells in one grouped read',
  },
  'src/modules/oauth/repository.ts': {
    tables: { organizations: 1 },
    why: "join: every OAuth-authenticated request reads its token with the organization's name and status in one prepared statement",
  },
  'src/modules/console/repository.ts': {
    tables: { organizations: 1 },
    why: "join: every console request reads its session with the organization's name, email and status in one statement",
  },
  'src/modules/billing/repository.ts': {
    tables: { organizations: 1 },
    why: "join: the admin organization list filters and pages organizations by their billing account's state in one query",
  },
};

const WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'replaceInto']);
const QUERY_BUILDER_CALL =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto|innerJoin|leftJoin|rightJoin|fullJoin|crossJoin|innerJoinLateral|leftJoinLateral)\(\s*(\[[^\]]*\]|['"`][^'"`]+['"`])/g;
const RAW_SQL = /\bsql\s*(?:<[^>`]*>)?\s*`([^`]*)`/g;
const RAW_SQL_TABLE = /\b(delete\s+from|from|join|into|update)\s+"?(\w+)/gi;

export interface TableAccess {
  table: string;
  access: 'read' | 'write';
  line: number;
}

/** The tables a source file reads and writes through Kysely's builder or in raw sql`` templates. */
export function tableAccesses(source: string): TableAccess[] {
  const lineOf = (index: number) => source.slice(0, index).split('\n').length;
  const found: TableAccess[] = [];
  for (const call of source.matchAll(QUERY_BUILDER_CALL)) {
    const access = WRITES.has(call[1]!) ? 'write' : 'read';
    // 'cells as c' and ['cells', 'pods'] name their tables first.
    for (const name of call[2]!.matchAll(/['"`](\w+)/g))
      found.push({ table: name[1]!, access, line: lineOf(call.index) });
  }
  for (const template of source.matchAll(RAW_SQL))
    for (const ref of template[1]!.matchAll(RAW_SQL_TABLE))
      found.push({
        table: ref[2]!,
        access: /^(from|join)$/i.test(ref[1]!) ? 'read' : 'write',
        line: lineOf(template.index),
      });
  return found;
}

/** The module a source path belongs to: src/modules/<module>/..., or src/operations (idempotency, stored counts). */
function moduleOf(path: string): string {
  const parts = path.split('/');
  return parts[1] === 'modules' ? parts[2]! : parts[1]!;
}

/** Each table and the module that declares it (the *Tables types that src/db/schema.ts composes). */
export function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  const declarations = globSync(['src/modules/**/tables.ts', 'src/operations/*-tables.ts'], {
    cwd: ROOT,
  });
  for (const file of declarations.map((path) => path.split(sep).join('/'))) {
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const block of source.matchAll(/(?:interface|type) \w+Tables\b[^{]*\{([^}]*)\}/g))
      for (const table of block[1]!.matchAll(/^\s+(\w+):/gm)) {
        const previous = owners.get(table[1]!);
        assert.ok(previous === undefined, `${table[1]} is declared by ${previous} and ${moduleOf(file)}`);
        owners.set(table[1]!, moduleOf(file));
      }
  }
  return owners;
}

/** What breaks the rule in one repository file: writes elsewhere, and reads beyond the exceptions. */
export function violations(file: string, source: string, owners: Map<string, string>): string[] {
  const own = moduleOf(file);
  const allowed = READ_EXCEPTIONS[file]?.tables ?? {};
  const seen = new Map<string, number>();
  return tableAccesses(source)
    .filter(({ table }) => owners.has(table) && owners.get(table) !== own)
    .filter(({ table, access }) => {
      if (access === 'write') return true;
      seen.set(table, (seen.get(table) ?? 0) + 1);
      const allowance = allowed[table] ?? 0;
      return allowance !== 'any' && seen.get(table)! > allowance;
    })
    .map(({ table, access, line }) => `${file}:${line} ${access}s ${table} (owned by ${owners.get(table)})`);
}

const repositories = () =>
  globSync(['src/**/repository.ts', 'src/**/*-repository.ts'], { cwd: ROOT })
    .map((path) => path.split(sep).join('/'))
    .sort();

describe('table ownership', () => {
  const owners = tableOwners();

  it("knows every module's tables", () => {
    for (const [table, owner] of [
      ['organizations', 'organizations'],
      ['messages', 'messages'],
      ['devices', 'devices'],
      ['operator_sessions', 'console'],
      ['idempotency_keys', 'operations'],
    ])
      assert.equal(owners.get(table!), owner, table);
    assert.ok(owners.size >= 40, `only ${owners.size} tables found`);
  });

  it('finds builder calls, aliases, lists, multi-line calls and raw sql', () => {
    const source = [
      "ex.selectFrom('cells as c').leftJoin('devices', 'devices.cell_id', 'c.id')",
      "ex.selectFrom(['pods', 'drafts'])",
      'ex\n  .updateTable(\n    "messages"\n  )',
      'await sql`delete from webhooks where id = ${id}`.execute(ex);',
      'await sql<number>`select count(*) from events join cells on true`.execute(ex);',
    ].join('\n');
    assert.deepEqual(tableAccesses(source), [
      { table: 'cells', access: 'read', line: 1 },
      { table: 'devices', access: 'read', line: 1 },
      { table: 'pods', access: 'read', line: 2 },
      { table: 'drafts', access: 'read', line: 2 },
      { table: 'messages', access: 'write', line: 4 },
      { table: 'webhooks', access: 'write', line: 7 },
      { table: 'events', access: 'read', line: 8 },
      { table: 'cells', access: 'read', line: 8 },
    ]);
  });

  it("refuses a new read of another module's table, and any write to one, even where a read is allowed", () => {
    const podsRead = "ex.selectFrom('cells').select('id').where('pod_id', '=', podId)";
    assert.deepEqual(violations('src/modules/pods/repository.ts', podsRead, owners), [
      'src/modules/pods/repository.ts:1 reads cells (owned by cells)',
    ]);
    const metricsWrite = "ex.updateTable('messages').set({ status: 'failed' })";
    assert.deepEqual(violations('src/modules/metrics/repository.ts', metricsWrite, owners), [
      'src/modules/metrics/repository.ts:1 writes messages (owned by messages)',
    ]);
    const rawWrite = 'sql`insert into ledger_entries (id) values (${id})`';
    assert.deepEqual(violations('src/modules/cells/repository.ts', rawWrite, owners), [
      'src/modules/cells/repository.ts:1 writes ledger_entries (owned by billing)',
    ]);
    assert.deepEqual(violations('src/modules/metrics/repository.ts', "ex.selectFrom('devices')", owners), []);
    // Billing may join organizations in its one listing; a second statement reading them is new.
    const secondRead = "ex.selectFrom('organizations').leftJoin('billing_accounts')\nex.selectFrom('organizations')";
    assert.deepEqual(violations('src/modules/billing/repository.ts', secondRead, owners), [
      'src/modules/billing/repository.ts:2 reads organizations (owned by organizations)',
    ]);
    assert.deepEqual(violations('src/modules/pods/repository.ts', "ex.selectFrom('pods')", owners), []);
  });

  it("holds for every repository: its own tables, and others' only as READ_EXCEPTIONS says", () => {
    const files = repositories();
    assert.ok(files.length >= 20, `only ${files.length} repositories found`);
    const broken = files.flatMap((file) => violations(file, readFileSync(join(ROOT, file), 'utf8'), owners));
    assert.deepEqual(broken, [], 'move these behind the owning module (docs/decisions.md, "Who reads whose tables")');
  });

  it('keeps no exception, nor a count, beyond what is used', () => {
    const files = new Set(repositories());
    const unused = Object.entries(READ_EXCEPTIONS).flatMap(([file, { tables }]) => {
      if (!files.has(file)) return [`${file} (no such repository)`];
      const reads = tableAccesses(readFileSync(join(ROOT, file), 'utf8'));
      return Object.entries(tables).flatMap(([table, allowance]) => {
        const used = reads.filter((access) => access.table === table).length;
        return (allowance === 'any' ? used > 0 : used === allowance) ? [] : [`${file}: ${table} ${used}/${allowance}`];
      });
    });
    assert.deepEqual(unused, []);
  });
});
