/** Progress without a terminal: plain lines, and a heartbeat line at least every interval while something waits. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgressRenderer } from '../../src/cli/progress.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('progress without a terminal', () => {
  it('says what waits at once, repeats it at least every heartbeat while it waits, and stops when it is done', () => {
    // Fake timers (Date.now and setInterval): the heartbeat is timed without waiting for it.
    vi.useFakeTimers();
    const lines: string[] = [];
    const render = createProgressRenderer(
      (s) => lines.push(s),
      false,
      (s) => lines.push(s),
      100,
    );
    render({ type: 'action-start', key: 'Package/pwsh', actionId: 'a', op: 'wait-package', description: 'wait' });
    render({ type: 'wait', key: 'Package/pwsh', what: 'package Running', elapsedMs: 0 });
    expect(lines).toEqual(['    … Package/pwsh: waiting, package Running (0 s)']);
    // The applier polls rarely: no new wait event, yet the log is not silent.
    vi.advanceTimersByTime(340);
    const beats = lines.length - 1;
    expect(beats).toBeGreaterThanOrEqual(2);
    expect(beats).toBeLessThanOrEqual(4);
    expect(lines.every((l) => l.includes('waiting, package Running') && !l.includes('\x1b'))).toBe(true);
    render({ type: 'action-done', key: 'Package/pwsh', actionId: 'a', op: 'wait-package', description: 'wait', durationMs: 340 });
    const after = lines.length;
    vi.advanceTimersByTime(250);
    expect(lines.length).toBe(after);
    expect(lines.at(-1)).toBe('  ✓ Package/pwsh: ready (0.3 s)');
  });

  it('no silence exceeds the heartbeat after a change of what waits, whenever it comes (regression: up to 1.5 heartbeats)', () => {
    vi.useFakeTimers();
    const at: number[] = [];
    const render = createProgressRenderer(
      () => at.push(Date.now()),
      false,
      () => undefined,
      10_000,
    );
    const start = Date.now();
    render({ type: 'wait', key: 'Package/pwsh', what: 'package Pending', elapsedMs: 0 });
    // What it waits for changes between two looks of the heartbeat.
    vi.advanceTimersByTime(2_900);
    render({ type: 'wait', key: 'Package/pwsh', what: 'package Running', elapsedMs: 2_900 });
    vi.advanceTimersByTime(60_000);
    const gaps = at.map((t, i) => t - (i === 0 ? start : at[i - 1]!));
    expect(at.length).toBeGreaterThan(6);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000);
  });
});
