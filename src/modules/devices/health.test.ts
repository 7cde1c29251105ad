// decideHealth: the pure decision over a phone's recent outcomes (newest first).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideHealth, HEALTH_WINDOW, type Outcome } from './health.ts';

const sent: Outcome = { outcome: 'sent', error_code: null };
const stuck: Outcome = { outcome: 'stuck', error_code: null };
const failed = (code: string | null = 'generic_failure'): Outcome => ({ outcome: 'failed', error_code: code });
const times = (n: number, o: Outcome) => Array.from({ length: n }, () => o);

describe('decideHealth', () => {
  it('is healthy with no outcomes, or with good ones', () => {
    assert.deepEqual(decideHealth('healthy', []), { health: 'healthy', reason: null });
    assert.deepEqual(decideHealth('healthy', times(20, sent)), { health: 'healthy', reason: null });
  });

  it('degrades at 2 carrier-type failures in a row and quarantines at 5', () => {
    assert.equal(decideHealth('healthy', [failed(), ...times(10, sent)]).health, 'healthy');
    const two = decideHealth('healthy', [failed(), failed('network_reject'), ...times(10, sent)]);
    assert.deepEqual(two, { health: 'degraded', reason: '2 carrier-type failures in a row (generic_failure)' });
    const five = decideHealth('degraded', [...times(5, failed()), ...times(10, sent)]);
    assert.equal(five.health, 'quarantined');
    assert.match(five.reason ?? '', /^5 carrier-type failures in a row \(generic_failure\)/);
  });

  it('does not count failures that say nothing about the SIM in the run', () => {
    const invalid = times(6, failed('invalid_number'));
    assert.equal(decideHealth('healthy', [...invalid, ...times(14, sent)]).health, 'degraded', 'only the rate: 30%');
    assert.equal(decideHealth('healthy', [failed('radio_off'), failed(null), ...times(10, sent)]).health, 'healthy');
  });

  it('a stuck send neither breaks nor extends a run; stuck sends degrade at 1 and quarantine at 3', () => {
    assert.equal(
      decideHealth('healthy', [failed(), stuck, failed(), failed(), failed(), failed(), ...times(10, sent)]).health,
      'quarantined',
    );
    assert.deepEqual(decideHealth('healthy', [stuck, ...times(10, sent)]), {
      health: 'degraded',
      reason: '1 of the last sends stuck in sending',
    });
    assert.equal(decideHealth('healthy', [stuck, sent, stuck, sent, stuck]).health, 'quarantined');
  });

  it('judges the failure rate over the last sends, once there are enough of them', () => {
    const alternating = Array.from({ length: 10 }, (_, i) => (i % 2 ? sent : failed('invalid_number')));
    assert.equal(decideHealth('healthy', alternating).health, 'degraded');
    const mostlyFailed = [...times(8, failed('delivery_failed')), sent, sent];
    assert.deepEqual(decideHealth('healthy', mostlyFailed), {
      health: 'quarantined',
      reason: '80% of the last 10 sends failed',
    });
    assert.equal(decideHealth('healthy', [failed('delivery_failed'), sent, failed('x')]).health, 'healthy', 'too few');
  });

  it(`looks at the newest ${HEALTH_WINDOW} outcomes only`, () => {
    assert.equal(decideHealth('healthy', [...times(HEALTH_WINDOW, sent), ...times(10, failed())]).health, 'healthy');
  });

  it('recovers from degraded by itself, never from quarantined', () => {
    assert.equal(decideHealth('degraded', times(10, sent)).health, 'healthy');
    assert.equal(decideHealth('quarantined', times(20, sent)).health, 'quarantined');
  });
});
