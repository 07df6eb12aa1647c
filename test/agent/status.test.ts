/** Status: condition transitions, the history of passes that mattered, events aggregated by identity. */
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, StatusTracker } from '../../src/agent/http/status.js';
import type { PassRecord } from '../../src/agent/http/status-types.js';

const pass = (result: PassRecord['result'], revision: string, message = 'm', writes = 0): PassRecord => ({
  revision,
  trigger: 't',
  startedAt: 'x',
  durationMs: 1,
  result,
  counts: {},
  writes,
  message,
});

describe('status', () => {
  it('moves Ready/Stalled like Flux and keeps the last applied revision through an invalid one', () => {
    let t = 0;
    const s = new StatusTracker({ source: 'x' }, () => new Date(1_700_000_000_000 + t++ * 1000));
    s.finishPass(pass('Succeeded', 'a'), [], []);
    expect(s.condition('Ready')).toMatchObject({ status: 'True', reason: 'ReconciliationSucceeded' });
    const since = s.condition('Ready').lastTransitionTime;
    s.finishPass(pass('Succeeded', 'a'), [], []);
    expect(s.condition('Ready').lastTransitionTime).toBe(since);
    s.finishPass(pass('Invalid', 'b', 'bad'), null, []);
    expect(s.status.lastAppliedRevision).toBe('a');
    expect(s.condition('Stalled')).toMatchObject({ status: 'True', reason: 'ValidationFailed', message: 'bad' });
    s.finishPass(pass('Failed', 'c'), null, []);
    expect(s.condition('Stalled')).toMatchObject({ status: 'False', reason: 'RetryScheduled' });
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) s.finishPass(pass('Succeeded', `r${i}`, 'm', 1), [], []);
    expect(s.status.history.length).toBe(HISTORY_LIMIT + 1);
  });

  it('keeps every pass that changed or failed something; no-op passes give way to the next and are counted', () => {
    const s = new StatusTracker({ source: 'x' });
    s.finishPass(pass('Succeeded', 'a', 'created 10', 10), [], []);
    for (let i = 0; i < 30; i++) s.finishPass(pass('Succeeded', 'a', 'in sync'), [], []);
    s.finishPass(pass('Failed', 'a', 'outage'), null, []);
    for (let i = 0; i < 30; i++) s.finishPass(pass('Succeeded', 'a', 'in sync'), [], []);
    expect(s.status.history.map((h) => h.message)).toEqual(['in sync', 'outage', 'created 10']);
    expect(s.status.noOpPasses).toBe(59);
  });

  it('aggregates an event by (object, reason, revision, wave) with a count and lastTimestamp, whatever its message', () => {
    let t = 0;
    const s = new StatusTracker({ source: 'x' }, () => new Date(1_700_000_000_000 + t++ * 1000));
    const e = { reason: 'DriftDetected' as const, object: 'Deployment/a', message: 'stopped outside packsync', revision: 'r1' };
    expect(s.event(e)).toBe(true);
    expect(s.event({ ...e, message: 'stopped outside packsync (again, reworded)' })).toBe(false);
    expect(s.event(e)).toBe(false);
    expect(s.status.events).toHaveLength(1);
    expect(s.status.events[0]).toMatchObject({
      count: 3,
      type: 'Warning',
      severity: 'info',
      time: '2023-11-14T22:13:21.000Z',
      lastTimestamp: '2023-11-14T22:13:23.000Z',
    });
    expect(s.event({ ...e, revision: 'r2' })).toBe(true);
    expect(s.event({ ...e, revision: 'r2', reason: 'WaveAdvanced', wave: 2 })).toBe(true);
    expect(s.event({ ...e, revision: 'r2', reason: 'WaveAdvanced', wave: 3 })).toBe(true);
    expect(s.status.events.map((x) => [x.reason, x.revision, x.wave ?? null])).toEqual([
      ['WaveAdvanced', 'r2', 3],
      ['WaveAdvanced', 'r2', 2],
      ['DriftDetected', 'r2', null],
      ['DriftDetected', 'r1', null],
    ]);
  });

  it('sets Drifted while objects drift unhealed', () => {
    const s = new StatusTracker({ source: 'x' });
    expect(s.condition('Drifted')).toMatchObject({ status: 'False', reason: 'InSync' });
    s.drifted(['Deployment/a']);
    expect(s.condition('Drifted')).toMatchObject({
      status: 'True',
      reason: 'DriftDetected',
      message: '1 object(s) changed outside packsync: Deployment/a',
    });
    s.drifted([]);
    expect(s.condition('Drifted')).toMatchObject({ status: 'False' });
  });
});
