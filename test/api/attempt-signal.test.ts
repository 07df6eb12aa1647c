/**
 * One attempt's signal (transport.ts `attemptSignal`): the caller's abort or the timeout, whichever
 * comes first, and nothing left behind once the attempt ends (it replaced AbortSignal.timeout plus
 * AbortSignal.any per call).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getEventListeners } from 'node:events';
import { attemptSignal } from '../../src/api/transport.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('attemptSignal', () => {
  it('aborts with a TimeoutError when the time is up, and says it timed out', () => {
    vi.useFakeTimers();
    const a = attemptSignal(undefined, 100);
    vi.advanceTimersByTime(99);
    expect(a.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(a.timedOut()).toBe(true);
  });

  it("follows the caller's abort, with its reason, and is not a timeout", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const a = attemptSignal(caller.signal, 100);
    caller.abort(new Error('stop'));
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as Error).message).toBe('stop');
    vi.advanceTimersByTime(200);
    expect(a.timedOut()).toBe(false);
  });

  it('starts aborted when the caller already is', () => {
    const caller = new AbortController();
    caller.abort(new Error('before'));
    const a = attemptSignal(caller.signal, 100);
    expect(a.signal.aborted).toBe(true);
    a.dispose();
  });

  it("leaves no timer and no listener on the caller's signal once disposed", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const attempts = Array.from({ length: 50 }, () => attemptSignal(caller.signal, 100));
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(50);
    expect(vi.getTimerCount()).toBe(50);
    for (const a of attempts) a.dispose();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(attempts.every((a) => !a.signal.aborted)).toBe(true);
  });
});
