import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/api/rate-limit.js';
import { Semaphore, TokenBucket } from '../../src/api/rate-limit.js';

/** A clock whose sleeps advance virtual time at once. */
function fakeClock(): Clock & { t: number; sleeps: number[] } {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      c.sleeps.push(ms);
      c.t += ms;
      return Promise.resolve();
    },
  };
  return c;
}

describe('TokenBucket', () => {
  it('allows a burst of perSecond, then paces at perSecond', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(5, clock);
    for (let i = 0; i < 5; i++) await bucket.acquire();
    expect(clock.sleeps).toEqual([]);
    await bucket.acquire();
    expect(clock.sleeps).toEqual([200]);
    expect(clock.t).toBe(200);
    await bucket.acquire();
    expect(clock.t).toBe(400);
  });

  it('refills with elapsed time but never above the burst', () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(2, clock);
    expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(false);
    clock.t += 10_000;
    expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(false);
  });

  it('serves concurrent waiters in order and honours abort', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(1, clock);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((i) => bucket.acquire().then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.t).toBe(2000);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(bucket.acquire(ac.signal)).rejects.toThrow('stop');
  });

  it('rejects a non-positive rate', () => {
    expect(() => new TokenBucket(0)).toThrow(RangeError);
  });
});

describe('Semaphore', () => {
  it('holds at most max, hands slots out FIFO, and release is idempotent', async () => {
    const sem = new Semaphore(2);
    const r1 = await sem.acquire();
    const r2 = await sem.acquire();
    const got: number[] = [];
    const p3 = sem.acquire().then((r) => (got.push(3), r));
    const p4 = sem.acquire().then((r) => (got.push(4), r));
    expect(sem.inFlight).toBe(2);
    expect(sem.waiting).toBe(2);
    r1();
    r1();
    const r3 = await p3;
    expect(got).toEqual([3]);
    expect(sem.inFlight).toBe(2);
    r2();
    const r4 = await p4;
    expect(got).toEqual([3, 4]);
    r3();
    r4();
    expect(sem.inFlight).toBe(0);
  });

  it('drops an aborted waiter from the queue', async () => {
    const sem = new Semaphore(1);
    const r1 = await sem.acquire();
    const ac = new AbortController();
    const waiting = sem.acquire(ac.signal);
    ac.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(sem.waiting).toBe(0);
    r1();
    expect(sem.inFlight).toBe(0);
    const r = await sem.acquire();
    expect(sem.inFlight).toBe(1);
    r();
  });
});
