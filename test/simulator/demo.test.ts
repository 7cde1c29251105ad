import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { UsageError } from '../../src/cli/admin.ts';
import { demoCommand } from '../../src/cli/demo.ts';

describe('cellgate demo', () => {
  it('sends from cell A to cell B, sees it delivered and received, runs a ring around a pod of three, and removes its temporary database', async () => {
    const lines: string[] = [];
    await demoCommand([], (line) => lines.push(line));
    const output = lines.join('\n');
    assert.match(output, /organization is active/);
    assert.match(output, /"Agent A" active on \+14155550101/);
    assert.match(output, /"Agent B" active on \+14155550102/);
    assert.match(output, /message msg_\w+ is delivered/);
    assert.match(output, /msg_\w+ received from \+14155550101 to \+14155550102: "Hello from Agent A/);
    assert.match(
      output,
      /job job_\w+ is completed \{"total":3,"queued":0,"sent":0,"delivered":0,"received":3,"failed":0,"skipped":0\}/,
    );
    assert.match(
      output,
      /hop 1: Agent A \(\+14155550101\) -> Agent B \(\+14155550102\): sent msg_\w+ \(delivered\), received as msg_\w+ \(received\)/,
    );
    assert.match(
      output,
      /hop 3: Agent C \(\+14155550103\) -> Agent A \(\+14155550101\): sent msg_\w+ \(delivered\), received as msg_\w+ \(received\)/,
    );
    const database = output.match(/database (\S+demo\.db)/)?.[1];
    assert.ok(database, 'the demo names its database');
    assert.equal(existsSync(database), false, 'the temporary database is gone');
  });

  it('takes no options', async () => {
    await assert.rejects(
      demoCommand(['--postgres'], () => {}),
      UsageError,
    );
  });
});
