/**
 * When and how long to wait before repeating a request: exponential backoff with full jitter
 * (AWS "full jitter": a uniform pick in [0, min(cap, base·2^(n-1)))), and the server's
 * `Retry-After` when it sent one (the larger of the two, never more than a minute).
 * Which requests may be repeated at all is decided by the transport (see `docs/errors.md`).
 */
import { abortableSleep } from './rate-limit.js';

export interface RetryOptions {
  /** Attempts in all, the first one included. Default 5. */
  maxAttempts?: number;
  /** Default 200 ms. */
  baseDelayMs?: number;
  /** Cap of the exponential backoff. Default 20 s. */
  maxDelayMs?: number;
}

/** The longest wait a `Retry-After` can make us honour. */
export const MAX_RETRY_AFTER_MS = 60_000;

export class RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;

  constructor(
    opts: RetryOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.maxAttempts = Math.max(1, Math.floor(opts.maxAttempts ?? 5));
    this.baseDelayMs = Math.max(0, opts.baseDelayMs ?? 200);
    this.maxDelayMs = Math.max(0, opts.maxDelayMs ?? 20_000);
  }

  /** Full-jitter backoff before attempt `attempt + 1`, after `attempt` (1-based) failed. */
  backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.max(0, attempt - 1));
    const r = Math.min(Math.max(this.random(), 0), 1);
    return Math.floor(r * ceiling);
  }

  /** The wait before the next attempt: the backoff, or `Retry-After` when larger (capped at 60 s). */
  delayMs(attempt: number, retryAfterMs: number | null): number {
    const backoff = this.backoffMs(attempt);
    if (retryAfterMs === null) return backoff;
    return Math.min(MAX_RETRY_AFTER_MS, Math.max(retryAfterMs, backoff));
  }

  canRetry(attempt: number): boolean {
    return attempt < this.maxAttempts;
  }
}

/**
 * Parses `Retry-After`: delta-seconds (`"2"`, `"1.5"` tolerated) or an HTTP-date. Null when
 * absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === '') return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (/^-/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const defaultSleep: Sleep = abortableSleep;
