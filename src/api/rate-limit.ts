/**
 * Client-side pacing: a token bucket for requests per second and a semaphore for requests in
 * flight. Both hand out in FIFO order and give up at once when the caller's signal aborts.
 */

/** Time as the limiter sees it; tests inject a fake one. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => abortableSleep(ms, signal),
};

/** Rejects with the signal's reason (or an AbortError) when it aborts. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(typeof reason === 'string' ? reason : 'The operation was aborted', 'AbortError');
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits for `p`, or rejects early when `signal` aborts (`p` itself keeps running). */
function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * A token bucket: `perSecond` tokens a second, holding at most `burst` (default `perSecond`).
 * It starts full, so a burst of `burst` calls goes out at once.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private tail: Promise<void> = Promise.resolve();
  readonly burst: number;

  constructor(
    readonly perSecond: number,
    private readonly clock: Clock = systemClock,
    burst?: number,
  ) {
    if (!(perSecond > 0)) throw new RangeError('perSecond must be > 0');
    this.burst = Math.max(1, burst ?? perSecond);
    this.tokens = this.burst;
    this.last = clock.now();
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.perSecond) / 1000);
  }

  /** Takes a token if one is there now. */
  tryAcquire(): boolean {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Waits for a token. Callers are served in arrival order. */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    const prev = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((r) => (done = r));
    try {
      await raceAbort(prev, signal);
      for (;;) {
        if (this.tryAcquire()) return;
        const waitMs = Math.ceil(((1 - this.tokens) * 1000) / this.perSecond);
        await this.clock.sleep(Math.max(1, waitMs), signal);
      }
    } finally {
      // Let the next waiter go only once our turn (or our wait for it) is over.
      void prev.then(done, done);
    }
  }
}

/** A counting semaphore: at most `max` holders at once. */
export class Semaphore {
  private active = 0;
  private readonly waiters: { grant: () => void }[] = [];

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError('max must be >= 1');
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves to a release function (calling it twice is harmless). */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.max && this.waiters.length === 0) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (): void => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(this.releaser());
        },
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortReason(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const next = this.waiters.shift();
      if (next) next.grant();
    };
  }
}
