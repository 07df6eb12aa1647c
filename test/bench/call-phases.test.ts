/**
 * The benchmarks' split of a run's wall time around its calls (bench/support.ts `callPhases`): what
 * docs/performance.md reads to say where a no-op or a patch-tuesday apply spends what is not calls.
 */
import { describe, expect, it } from 'vitest';
import { callPhases, phaseMetrics } from '../../bench/support.js';

const at = (ms: number): { time: string } => ({ time: new Date(Date.UTC(2026, 10, 28) + ms).toISOString() });
const start = Date.UTC(2026, 10, 28);

describe('call phases', () => {
  it('places the calls in the run: before the first, the first second, the pace after it, the longest gap, after the last', () => {
    // First call 700 ms after the spawn; 5 calls in its first second; then 1 call every 10 ms
    // for 2 s, with one 400 ms stretch without a call; the process exits 900 ms after the last.
    const times = [700, 800, 900, 1300, 1600];
    for (let t = 1700; t < 2700; t += 10) times.push(t);
    for (let t = 3100; t < 4100; t += 10) times.push(t);
    const run = { startedAtMs: start, ms: times.at(-1)! + 900 };
    const p = callPhases(run, times.map(at))!;
    expect(p.beforeFirstCallMs).toBe(700);
    expect(p.firstSecondCalls).toBe(5);
    expect(p.longestGapMs).toBe(410);
    expect(p.afterLastCallMs).toBe(900);
    // 200 calls over the 2,390 ms from one second after the first call to the last.
    expect(p.paceCallsPerS).toBe(Math.round((200 / 2390) * 1000));
    expect(phaseMetrics('noop', p)).toMatchObject({ noopBeforeFirstCallMs: 700, noopLongestGapMs: 410, noopAfterLastCallMs: 900 });
  });

  it('says nothing of a run that made no call', () => {
    expect(callPhases({ startedAtMs: start, ms: 100 }, [])).toBeUndefined();
    expect(phaseMetrics('apply', undefined)).toEqual({});
  });
});
