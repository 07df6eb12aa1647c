import { describe, expect, it } from 'vitest';
import { parseRetryAfter, RetryPolicy } from '../../src/api/retry.js';

describe('RetryPolicy', () => {
  it('uses full jitter under an exponential ceiling capped at maxDelayMs', () => {
    const hi = new RetryPolicy({}, () => 0.999999);
    expect([1, 2, 3, 4].map((a) => hi.backoffMs(a))).toEqual([199, 399, 799, 1599]);
    expect(hi.backoffMs(20)).toBe(19_999);
    const lo = new RetryPolicy({}, () => 0);
    expect(lo.backoffMs(5)).toBe(0);
  });

  it('takes the larger of Retry-After and the backoff, capped at 60 s', () => {
    const p = new RetryPolicy({ baseDelayMs: 1000 }, () => 0.5);
    expect(p.delayMs(1, null)).toBe(500);
    expect(p.delayMs(1, 100)).toBe(500);
    expect(p.delayMs(1, 3000)).toBe(3000);
    expect(p.delayMs(1, 600_000)).toBe(60_000);
  });

  it('defaults to 5 attempts', () => {
    const p = new RetryPolicy();
    expect(p.maxAttempts).toBe(5);
    expect(p.canRetry(4)).toBe(true);
    expect(p.canRetry(5)).toBe(false);
    expect(new RetryPolicy({ maxAttempts: 0 }).maxAttempts).toBe(1);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T10:00:00Z');
  it('reads seconds and HTTP-dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('Sun, 01 Mar 2026 10:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });

  it('is null when absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter('-1', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});
