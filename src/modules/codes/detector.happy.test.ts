import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CODE_TEXTS, NON_CODE_TEXTS } from '../../../test/fixtures/code-texts.ts';
import { detectCode } from './detector.ts';

describe('verification code detector', () => {
  it('finds the codes of the corpus (recall >= 98%) and no code in texts without one', () => {
    assert.ok(CODE_TEXTS.length >= 100, `corpus has ${CODE_TEXTS.length} code texts`);
    let right = 0;
    let wrong = 0;
    let services = 0;
    const misses: string[] = [];
    for (const sample of CODE_TEXTS) {
      const found = detectCode(sample.text);
      if (found?.code === sample.code) right += 1;
      else {
        if (found) wrong += 1;
        misses.push(`${JSON.stringify(sample.text)} → ${JSON.stringify(found)} (want ${sample.code})`);
      }
      if (found?.code === sample.code && found.service === sample.service) services += 1;
      else if (found?.code === sample.code)
        misses.push(`service of ${JSON.stringify(sample.text)}: ${found.service} (want ${sample.service})`);
    }
    const falseCodes = NON_CODE_TEXTS.map((text) => ({ text, found: detectCode(text) })).filter((r) => r.found);
    const reported = right + wrong + falseCodes.length;
    const precision = reported === 0 ? 1 : right / reported;
    const recall = right / CODE_TEXTS.length;
    console.log(
      `codes corpus: ${CODE_TEXTS.length} code texts, ${NON_CODE_TEXTS.length} without; precision ${(precision * 100).toFixed(1)}%, recall ${(recall * 100).toFixed(1)}%, service named right ${((services / CODE_TEXTS.length) * 100).toFixed(1)}%`,
    );
    for (const miss of misses) console.log(`  ${miss}`);
    for (const r of falseCodes) console.log(`  false code: ${JSON.stringify(r.text)} → ${JSON.stringify(r.found)}`);
    assert.deepEqual(falseCodes, []);
    assert.ok(recall >= 0.98, `recall ${recall}`);
    assert.ok(services / CODE_TEXTS.length >= 0.95, `service ${services / CODE_TEXTS.length}`);
  });
});
