/**
 * Regression (issue 20.9, operator review 3 row 22): a repeated `ApplySucceeded` kept saying "1 write(s)"
 * while its count grew, and `Recovered` said "in sync again" while drift was reported. An event's
 * message now speaks for its count, and "in sync" is said only when it is true.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/agent/http/metrics.js';
import { PassObserver } from '../../src/agent/pass-observer.js';
import { StatusTracker } from '../../src/agent/http/status.js';
import type { PacksyncApi } from '../../src/api/operations.js';

function observer(): { obs: PassObserver; status: StatusTracker } {
  const status = new StatusTracker({ source: 'https://git.example/acme/fleet.git', ref: 'main', path: '' });
  const obs = new PassObserver({ api: {} as PacksyncApi, status, metrics: createMetrics(), logger: pino({ level: 'silent' }) });
  return { obs, status };
}

describe('event messages fit their count', () => {
  it('a repeated ApplySucceeded of one revision says what all its passes wrote', () => {
    const { obs, status } = observer();
    obs.finished('Succeeded', 'a'.repeat(40), 1);
    obs.finished('Succeeded', 'a'.repeat(40), 2);
    obs.finished('Succeeded', 'a'.repeat(40), 1);
    const e = status.log.events.find((x) => x.reason === 'ApplySucceeded')!;
    expect(e.count).toBe(3);
    expect(e.message).toBe(`revision ${'a'.repeat(40)} applied again: 1 write(s) in the latest pass, 4 in 3 passes`);
    obs.finished('Succeeded', 'b'.repeat(40), 2);
    expect(status.log.events[0]!.message).toBe(`revision ${'b'.repeat(40)} applied: 2 write(s)`);
  });

  it('Recovered says "in sync" only when no drift is reported', () => {
    const { obs, status } = observer();
    obs.crashed('a'.repeat(40), 'API unreachable', 'API_UNAVAILABLE');
    status.set('Drifted', 'True', 'DriftDetected', '1 object drifted (reported, not healed)');
    obs.finished('Succeeded', 'a'.repeat(40), 0);
    const e = status.log.events.find((x) => x.reason === 'Recovered')!;
    expect(e.message).toMatch(/applies again \(drift is reported, not healed/);
    obs.crashed('c'.repeat(40), 'API unreachable', 'API_UNAVAILABLE');
    status.set('Drifted', 'False', 'ReconciliationSucceeded', 'no drift');
    obs.finished('Succeeded', 'c'.repeat(40), 0);
    expect(status.log.events[0]!.message).toBe(`revision ${'c'.repeat(40)} is in sync again`);
  });
});
