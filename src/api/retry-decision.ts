/**
 * Whether a failed attempt is repeated, after how long, and with which error if not. A pure
 * function of the request, what came back, the attempt number and the policy (clock, jitter and
 * key passed in), so every branch is testable without a server. Which requests may be repeated is
 * the heart of the client (the table is in `docs/errors.md`):
 *
 * - `idempotent: true` (GET, DELETE, and POSTs whose repetition has the same effect as one call):
 *   repeated on network errors, timeouts, 408, 429 and 5xx.
 * - `idempotent: false` (creates, import, tenant upload, skip-wave, update-content): repeated only
 *   when the request certainly did not take effect (429, or no connection could be made). A lost
 *   answer after the request may have reached the server (5xx, 408, reset, timeout) is
 *   `API_OUTCOME_UNKNOWN`, and the caller looks the object up instead of creating it twice.
 */
import { ApiError, httpError } from './errors.js';
import { redactSecrets } from '../util/secrets.js';
import type { ApiErrorCode } from './errors.js';
import { readProblem } from './http-encoding.js';
import type { HttpResponse } from './http-encoding.js';
import { parseRetryAfter } from './retry.js';
import type { RetryPolicy } from './retry.js';

/** What one attempt produced: an answer (any status), or no answer and why. */
export type AttemptOutcome =
  { kind: 'response'; response: HttpResponse } | { kind: 'error'; cause: unknown; code: string; timedOut: boolean; aborted: boolean };

/** The two facts about a request the decision needs. */
export interface DecisionRequest {
  operation: string;
  /** True when repeating the request after it may have taken effect is harmless. */
  idempotent: boolean;
}

export interface DecisionPolicy {
  /** Attempts allowed and the backoff (its jitter source is injected there). */
  retry: RetryPolicy;
  /** Wall clock (ms) for an HTTP-date `Retry-After`. */
  nowMs: number;
  /** Per-attempt timeout, quoted in timeout messages. */
  timeoutMs: number;
  /** Removed from every message (the API key; a server may echo it). */
  secrets: readonly string[];
}

/** Repeat after `delayMs`, or stop with `error`; a retry still carries the attempt's error, for logs. */
export type RetryDecision = { retry: true; delayMs: number; error: ApiError } | { retry: false; error: ApiError };

/** Errors raised before any byte of the request can have left: safe to repeat any request. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const CONNECT_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name resolution failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
};

/** Errors raised while building the request (a header value that cannot be sent): no byte left, and no repeat would differ. */
const REQUEST_CODES = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_CHAR', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_ARG_TYPE']);

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

export function abortedError(operation: string, cause: unknown): ApiError {
  return new ApiError('API_ABORTED', `${operation}: aborted`, { operation, cause });
}

/**
 * The decision after attempt `attempt` (1-based) failed: a non-2xx answer or no answer. A 2xx is
 * not a failure and never reaches here. The backoff is drawn only when the answer is to retry, so
 * the jitter source sees the same sequence of calls as before the decision was a function.
 */
export function decide(req: DecisionRequest, outcome: AttemptOutcome, attempt: number, policy: DecisionPolicy): RetryDecision {
  let retryAfterMs: number | null = null;
  let error: ApiError;
  let retry: boolean;

  if (outcome.kind === 'response') {
    const { status, headers, body } = outcome.response;
    const problem = readProblem(body);
    retryAfterMs = parseRetryAfter(headers['retry-after'], policy.nowMs);
    const canRepeat = req.idempotent ? isRetryableStatus(status) : status === 429;
    const unknown = !req.idempotent && (status === 408 || (status >= 500 && status !== 501 && status !== 505));
    retry = canRepeat && policy.retry.canRetry(attempt);
    const code: ApiErrorCode | undefined = unknown ? 'API_OUTCOME_UNKNOWN' : undefined;
    const note = unknown ? 'the request may have taken effect' : canRepeat && attempt > 1 ? `gave up after ${attempt} attempts` : undefined;
    error = httpError(req.operation, status, problem, {
      retryAfterMs,
      secrets: policy.secrets,
      ...(code ? { code } : {}),
      ...(note ? { note } : {}),
    });
  } else {
    if (outcome.aborted) return { retry: false, error: abortedError(req.operation, outcome.cause) };
    if (REQUEST_CODES.has(outcome.code)) {
      const message = `${req.operation}: the request could not be sent (${outcome.code}); nothing reached the service`;
      return { retry: false, error: new ApiError('API_BAD_REQUEST', message, { operation: req.operation, cause: outcome.cause }) };
    }
    const connectPhase = CONNECT_CODES.has(outcome.code);
    const canRepeat = req.idempotent || connectPhase;
    retry = canRepeat && policy.retry.canRetry(attempt);
    error = networkError(req.operation, outcome, canRepeat, attempt, policy);
  }

  if (!retry) return { retry: false, error };
  return { retry: true, delayMs: policy.retry.delayMs(attempt, retryAfterMs), error };
}

function networkError(
  op: string,
  o: Extract<AttemptOutcome, { kind: 'error' }>,
  canRepeat: boolean,
  attempt: number,
  policy: DecisionPolicy,
): ApiError {
  const tail = canRepeat && attempt > 1 ? `; gave up after ${attempt} attempts` : '';
  if (!canRepeat) {
    const what = o.timedOut ? `timed out after ${policy.timeoutMs} ms` : `connection lost (${o.code})`;
    return new ApiError('API_OUTCOME_UNKNOWN', `${op}: ${what}; the request may have taken effect`, { operation: op, cause: o.cause });
  }
  if (o.timedOut) {
    return new ApiError('API_TIMEOUT', `${op}: timed out after ${policy.timeoutMs} ms${tail}`, { operation: op, cause: o.cause });
  }
  const words = CONNECT_WORDS[o.code] ?? 'connection failed';
  const message = redactSecrets(`${op}: service unavailable: ${words} (${o.code})${tail}`, policy.secrets);
  return new ApiError('API_UNAVAILABLE', message, { operation: op, cause: o.cause });
}
