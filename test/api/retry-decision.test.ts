/**
 * The retry decision without a server: each case builds the outcome of one attempt by hand and
 * asserts whether the transport repeats it, after how long, and with which error otherwise. The
 * end-to-end behaviour over real HTTP stays in `client.test.ts`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { RetryPolicy } from '../../src/api/retry.js';
import { decide } from '../../src/api/retry-decision.js';
import type { AttemptOutcome, DecisionPolicy, DecisionRequest, RetryDecision } from '../../src/api/retry-decision.js';

const KEY = 'sk-test-SECRET-do-not-leak';
const NOW = Date.parse('2026-02-18T12:00:00Z');

/** Backoff ceiling is 1000·2^(n-1) ms; a jitter of 0.5 makes the backoff exactly half of it. */
function policy(maxAttempts = 3, random = (): number => 0.5): DecisionPolicy {
  return {
    retry: new RetryPolicy({ maxAttempts, baseDelayMs: 1000, maxDelayMs: 20_000 }, random),
    nowMs: NOW,
    timeoutMs: 100,
    secrets: [KEY],
  };
}

const safe: DecisionRequest = { operation: 'getFlow', idempotent: true };
const unsafe: DecisionRequest = { operation: 'createFlow', idempotent: false };

function answer(status: number, headers: IncomingHttpHeaders = {}, body = ''): AttemptOutcome {
  return { kind: 'response', response: { status, headers, body: Buffer.from(body) } };
}

function lost(code: string, flags: { timedOut?: boolean; aborted?: boolean } = {}): AttemptOutcome {
  return {
    kind: 'error',
    cause: Object.assign(new Error(code), { code }),
    code,
    timedOut: flags.timedOut ?? false,
    aborted: flags.aborted ?? false,
  };
}

function stop(d: RetryDecision): ApiError {
  expect(d.retry).toBe(false);
  expect(d.error).toBeInstanceOf(ApiError);
  return d.error;
}

function delay(d: RetryDecision): number {
  if (!d.retry) throw new Error(`expected a retry, got ${d.error.code}: ${d.error.message}`);
  return d.delayMs;
}

describe('decide: 429', () => {
  it('repeats any request after the Retry-After seconds when they exceed the backoff', () => {
    expect(delay(decide(safe, answer(429, { 'retry-after': '3' }), 1, policy()))).toBe(3000);
    // 429 means the service refused before acting: even a create is repeated.
    expect(delay(decide(unsafe, answer(429, { 'retry-after': '3' }), 1, policy()))).toBe(3000);
  });

  it('reads an HTTP-date Retry-After against the injected clock', () => {
    const at = new Date(NOW + 7000).toUTCString();
    expect(delay(decide(safe, answer(429, { 'retry-after': at }), 1, policy()))).toBe(7000);
  });

  it('keeps the backoff when Retry-After is shorter, and caps a long one at 60 s', () => {
    expect(delay(decide(safe, answer(429, { 'retry-after': '0' }), 2, policy()))).toBe(1000);
    expect(delay(decide(safe, answer(429, { 'retry-after': '3600' }), 1, policy()))).toBe(60_000);
  });

  it('gives up with API_RATE_LIMITED carrying the Retry-After once attempts are spent', () => {
    const e = stop(decide(safe, answer(429, { 'retry-after': '2' }), 3, policy(3)));
    expect(e.code).toBe('API_RATE_LIMITED');
    expect(e.retryAfterMs).toBe(2000);
    expect(e.message).toBe('getFlow: 429 Too Many Requests (gave up after 3 attempts)');
  });
});

describe('decide: 5xx and 408', () => {
  it('repeats a safe request on 500, 502, 503, 504 and 408 with the jittered backoff', () => {
    for (const status of [500, 502, 503, 504, 408]) expect(delay(decide(safe, answer(status), 1, policy())), String(status)).toBe(500);
    expect(delay(decide(safe, answer(503), 2, policy()))).toBe(1000);
  });

  it('does not repeat 501 or 505: the service will answer the same', () => {
    expect(stop(decide(safe, answer(501), 1, policy())).code).toBe('API_UNAVAILABLE');
    expect(stop(decide(safe, answer(505), 1, policy())).code).toBe('API_UNAVAILABLE');
  });

  it('never repeats an unsafe request on 5xx or 408: API_OUTCOME_UNKNOWN, on the first attempt', () => {
    for (const status of [500, 502, 503, 504, 408]) {
      const e = stop(decide(unsafe, answer(status), 1, policy()));
      expect(e.code, String(status)).toBe('API_OUTCOME_UNKNOWN');
      expect(e.status).toBe(status);
      expect(e.message).toMatch(/\(the request may have taken effect\)$/);
    }
  });

  it('quotes the problem body and removes the key from it', () => {
    const body = JSON.stringify({ title: 'Bad', detail: `echoed ${KEY}` });
    const e = stop(decide(safe, answer(400, { 'content-type': 'application/problem+json' }, body), 1, policy()));
    expect(e.code).toBe('API_BAD_REQUEST');
    expect(e.problem).toMatchObject({ title: 'Bad' });
    expect(e.message).toBe('getFlow: 400 Bad Request: Bad: echoed [REDACTED]');
  });

  it('does not repeat a 4xx answer other than 408 and 429', () => {
    for (const [status, code] of [
      [401, 'API_UNAUTHORIZED'],
      [404, 'API_NOT_FOUND'],
      [409, 'API_CONFLICT'],
    ] as const) {
      const e = stop(decide(safe, answer(status), 1, policy()));
      expect(e.code).toBe(code);
      expect(e.message).not.toMatch(/gave up/);
    }
  });
});

describe('decide: no answer', () => {
  it('repeats any request when no connection could be made (nothing can have been sent)', () => {
    expect(delay(decide(unsafe, lost('ECONNREFUSED'), 1, policy()))).toBe(500);
    expect(delay(decide(safe, lost('UND_ERR_CONNECT_TIMEOUT'), 1, policy()))).toBe(500);
  });

  it('a reset before the answer: a safe request is repeated, an unsafe one is API_OUTCOME_UNKNOWN', () => {
    expect(delay(decide(safe, lost('ECONNRESET'), 1, policy()))).toBe(500);
    const e = stop(decide(unsafe, lost('ECONNRESET'), 1, policy()));
    expect(e.code).toBe('API_OUTCOME_UNKNOWN');
    expect(e.message).toBe('createFlow: connection lost (ECONNRESET); the request may have taken effect');
  });

  it('a reset on the last attempt of a safe request is API_UNAVAILABLE saying how many attempts were made', () => {
    const e = stop(decide(safe, lost('ECONNRESET'), 3, policy(3)));
    expect(e.code).toBe('API_UNAVAILABLE');
    expect(e.message).toBe('getFlow: service unavailable: connection failed (ECONNRESET); gave up after 3 attempts');
  });

  it('a refused connection on the last attempt names what failed', () => {
    const e = stop(decide(unsafe, lost('ECONNREFUSED'), 3, policy(3)));
    expect(e.message).toBe('createFlow: service unavailable: connection refused (ECONNREFUSED); gave up after 3 attempts');
  });

  it('a timeout: a safe request is repeated, then API_TIMEOUT; an unsafe one is API_OUTCOME_UNKNOWN at once', () => {
    const timeout = lost('TIMEOUT', { timedOut: true });
    expect(delay(decide(safe, timeout, 1, policy()))).toBe(500);
    const last = stop(decide(safe, timeout, 2, policy(2)));
    expect(last.code).toBe('API_TIMEOUT');
    expect(last.message).toBe('getFlow: timed out after 100 ms; gave up after 2 attempts');
    const e = stop(decide(unsafe, timeout, 1, policy()));
    expect(e.code).toBe('API_OUTCOME_UNKNOWN');
    expect(e.message).toBe('createFlow: timed out after 100 ms; the request may have taken effect');
  });

  it('an abort by the caller is API_ABORTED and never repeated, whatever attempts remain', () => {
    const e = stop(decide(safe, lost('ABORTED', { aborted: true }), 1, policy(5)));
    expect(e.code).toBe('API_ABORTED');
    expect(e.message).toBe('getFlow: aborted');
  });
});

describe('decide: attempts and jitter', () => {
  it('retries while attempts remain and stops at maxAttempts', () => {
    expect(decide(safe, answer(503), 1, policy(2)).retry).toBe(true);
    expect(decide(safe, answer(503), 2, policy(2)).retry).toBe(false);
    expect(decide(safe, answer(503), 1, policy(1)).retry).toBe(false);
  });

  it('draws the jitter only when it retries', () => {
    let draws = 0;
    const counting = (): number => {
      draws++;
      return 0.5;
    };
    decide(unsafe, answer(503), 1, policy(3, counting));
    decide(safe, answer(503), 3, policy(3, counting));
    decide(safe, lost('ABORTED', { aborted: true }), 1, policy(3, counting));
    expect(draws).toBe(0);
    decide(safe, answer(503), 1, policy(3, counting));
    expect(draws).toBe(1);
  });

  it('a retry still carries the attempt error, for logs', () => {
    const d = decide(safe, answer(503), 1, policy());
    expect(d.retry).toBe(true);
    expect(d.error.code).toBe('API_UNAVAILABLE');
  });
});

describe('decide: a request that cannot be built', () => {
  it('is not repeated: API_BAD_REQUEST at once, naming the code and not the key (regression: five attempts of an invalid header)', () => {
    for (const req of [safe, unsafe]) {
      const e = stop(decide(req, lost('UND_ERR_INVALID_ARG'), 1, policy()));
      expect(e.code).toBe('API_BAD_REQUEST');
      expect(e.message).toContain('UND_ERR_INVALID_ARG');
      expect(e.message).not.toContain(KEY);
    }
  });
});
