// The agent-side commands (send, messages ls, events tail, status) as a child process against a
// test app listening on loopback, with an API key in CELLGATE_API_KEY.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../test/harness.ts';
import { claim, report, type Line } from '../../test/support/messages.ts';
import { exited, listeningLine, outputMatching, runCli, startCli } from '../../test/support/cli-agent.ts';

describe('cellgate send, messages ls, events tail, status', () => {
  let t: TestApp;
  let line: Line;
  let env: Record<string, string>;
  before(async () => {
    ({ t, line, env } = await listeningLine());
  });
  after(() => t?.close());

  it('send prints the queued message id and status', async () => {
    const result = await runCli(['send', '--cell', line.cell.id, '--to', '+14155550199', 'Your table is ready'], env);
    assert.equal(result.status, 0, result.stderr);
    const [, id] = result.stdout.match(/^(msg_[0-9a-z]+) queued \(from \+\d+ to \+14155550199, 1 segment\)\n$/) ?? [];
    assert.ok(id, result.stdout);
    const stored = await t.app.inject({ url: `/v1/cells/${line.cell.id}/messages/${id}`, headers: line.org.headers });
    assert.equal(stored.json().body, 'Your table is ready');
  });

  it('send with --idempotency-key answers the same message when repeated; --key and --base-url replace the environment', async () => {
    const args = [
      'send',
      '--cell',
      line.cell.id,
      '--to',
      '+14155550199',
      '--idempotency-key',
      'cli-retry-1',
      'once only',
    ];
    const flags = ['--key', env.CELLGATE_API_KEY, '--base-url', env.CELLGATE_BASE_URL];
    const first = await runCli([...args, ...flags]);
    const second = await runCli([...args, ...flags]);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(second.stdout, first.stdout);
  });

  it('send --wait waits while the phone claims and reports, then prints the delivered message', async () => {
    const child = startCli(['send', '--wait', '--cell', line.cell.id, '--to', '+14155550123', 'wait for me'], env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    await outputMatching(child, 'stderr', /waiting for msg_\w+: queued/);
    const id = stdout.match(/^(msg_[0-9a-z]+) queued/)?.[1];
    assert.ok(id, stdout);
    const claimed = await claim(t, line);
    assert.ok(claimed.some((m) => m.id === id));
    assert.equal((await report(t, line, id, { event: 'sent' })).statusCode, 200);
    await outputMatching(child, 'stderr', /: sent\n/);
    assert.equal((await report(t, line, id, { event: 'delivered' })).statusCode, 200);
    assert.equal(await exited(child), 0, stderr);
    assert.match(stdout, new RegExp(`^id +${id}$`, 'm'));
    assert.match(stdout, /^status +delivered$/m);
    assert.match(stdout, /^body +wait for me$/m);
    assert.match(stdout, /^delivered_at +\d{4}-/m);
    assert.match(
      stderr,
      /waiting for msg_\w+: queued\n(.*\n)*waiting for msg_\w+: sent\n(.*\n)*waiting for msg_\w+: delivered\n/,
    );
  });

  it('messages ls prints a table, filtered by --direction and --limit', async () => {
    const result = await runCli(
      ['messages', 'ls', '--cell', line.cell.id, '--direction', 'outbound', '--limit', '2'],
      env,
    );
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^ID +DIRECTION +STATUS +FROM +TO +CREATED +BODY$/);
    assert.equal(lines.length, 3, result.stdout);
    assert.match(lines[1], /^msg_\w+ +outbound +delivered +\+\d+ +\+14155550123 +\d{4}-\S+ +wait for me$/);
    assert.match(result.stderr, new RegExp(`more: cellgate messages ls --cell ${line.cell.id} --cursor \\S+`));
    const inbound = await runCli(['messages', 'ls', '--cell', line.cell.id, '--direction', 'inbound'], env);
    assert.equal(inbound.stdout, 'no messages\n');
  });

  it('status prints the checks as ok/warn/fail lines', async () => {
    const result = await runCli(['status'], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^organization .*\\(${line.org.organizationId}\\) is active$`, 'm'));
    for (const name of ['organization', 'cells', 'messages', 'billing', 'webhooks']) {
      assert.match(result.stdout, new RegExp(`^(ok|warn|fail) +${name} +\\S`, 'm'), name);
    }
    assert.match(result.stdout, /^ok +organization +The organization is verified\.$/m);
  });

  it('events tail prints each event of the stream until it is stopped', async () => {
    const child = startCli(['events', 'tail', '--types', 'message.*'], env);
    let stdout = '';
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    try {
      await outputMatching(
        child,
        'stderr',
        /listening for message\.\* events at http:\/\/127\.0\.0\.1:\d+ \(Ctrl-C to stop\)/,
      );
      const sent = await runCli(['send', '--cell', line.cell.id, '--to', '+14155550177', 'tail me'], env);
      const id = sent.stdout.split(' ')[0];
      await claim(t, line);
      assert.equal((await report(t, line, id, { event: 'sent' })).statusCode, 200);
      await outputMatching(
        child,
        'stdout',
        new RegExp(`message\\.sent +evt_\\w+ +${id} outbound \\+\\d+ -> \\+14155550177 sent "tail me"`),
      );
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited(child), 0);
    assert.doesNotMatch(stdout, /cell\./);
  });
});

describe('--help of the agent commands', () => {
  it('cellgate --help lists them, with a description for each of their flags', async () => {
    const result = await runCli(['--help']);
    assert.equal(result.status, 0, result.stderr);
    for (const command of ['send', 'messages ls', 'events tail', 'status'])
      assert.match(result.stdout, new RegExp(`^  ${command} +\\S+( \\S+){2,}`, 'm'), command);
    for (const flag of [
      '--cell',
      '--to',
      '--idempotency-key',
      '--wait',
      '--timeout',
      '--direction',
      '--limit',
      '--cursor',
      '--types',
      '--since',
      '--json',
      '--base-url',
      '--key',
    ]) {
      assert.match(result.stdout, new RegExp(`^\\s+${flag}( <[^>]+>)? {2,}\\S+( \\S+){2,}`, 'm'), flag);
    }
  });

  it('cellgate send --help says --wait ends at sent for a phone without delivery reports', async () => {
    const result = await runCli(['send', '--help']);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      /^ +--wait +wait until the message is delivered, failed or canceled \(or sent, from a phone without delivery reports\), and print it$/m,
    );
  });

  for (const command of [['send'], ['messages', 'ls'], ['events', 'tail'], ['status']]) {
    it(`cellgate ${command.join(' ')} --help describes each flag, without needing a key`, async () => {
      const result = await runCli([...command, '--help']);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^usage: cellgate ${command.join(' ')}`));
      const flagLines = result.stdout.split('\n').filter((line) => /^\s+--/.test(line));
      assert.ok(flagLines.length >= 2);
      for (const flagLine of flagLines) assert.match(flagLine, /^\s+--[a-z-]+( <[^>]+>)? {2,}\S+( \S+){2,}/, flagLine);
    });
  }
});
