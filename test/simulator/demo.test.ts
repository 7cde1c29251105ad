import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { UsageError } from '../../src/cli/admin.ts';
import { demoCommand } from '../../src/cli/demo.ts';

describe('cellgate demo', () => {
  it('sends from cell A to cell B, sees it delivered and received, and removes its temporary database', async () => {
    const lines: string[] = [];
    await demoCommand([], (line) => lines.push(line));
    const output = lines.join('\n');
    assert.match(output, /organization is active/);
    assert.match(output, /"Agent A" active on \+14155550101/);
    assert.match(output, /"Agent B" active on \+14155550102/);
    assert.match(output, /message msg_\w+ is delivered/);
    assert.match(output, /msg_\w+ received from \+14155550101 to \+14155550102: "Hello from Agent A/);
    const database = output.match(/database (\S+demo\.db)/)?.[1];
    assert.ok(database, 'the demo names its database');
    assert.equal(existsSync(database), false, 'the temporary database is gone');
  });

  it('takes no options', async () => {
    await assert.rejects(demoCommand(['--postgres'], () => {}), UsageError);
  });
});
