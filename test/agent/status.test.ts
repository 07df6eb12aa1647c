/** Status: condition transitions, bounded history, events once per revision. */
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, StatusTracker } from '../../src/agent/status.js';
import type { PassRecord } from '../../src/agent/status.js';

const pass = (result: PassRecord['result'], revision: string, message = 'm'): PassRecord => ({ revision, trigger: 't', startedAt: 'x', durationMs: 1, result, counts: {}, writes: 0, message });

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
    for (let i = 0; i < HISTORY_LIMIT + 5; i++) s.finishPass(pass('Succeeded', `r${i}`), [], []);
    expect(s.status.history.length).toBe(HISTORY_LIMIT);
  });

  it('emits each distinct event once per revision', () => {
    const s = new StatusTracker({ source: 'x' });
    const e = { type: 'Warning' as const, reason: 'DriftDetected', object: 'Deployment/a', message: 'stopped outside packsync', revision: 'r1' };
    expect(s.event(e)).toBe(true);
    expect(s.event(e)).toBe(false);
    expect(s.event({ ...e, revision: 'r2' })).toBe(true);
    expect(s.status.events.map((x) => x.revision)).toEqual(['r2', 'r1']);
  });
});
