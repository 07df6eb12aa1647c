/**
 * The HTTP layer of the client: one undici dispatcher (injected, or a Pool the transport owns),
 * auth header, per-request timeout, client-side pacing, and the loop that repeats a request. Which
 * requests may be repeated, and after how long, is `retry-decision.ts` (the table is in
 * `docs/errors.md`); the wire encoding is `http-encoding.ts`. This file is the single attempt and
 * the loop around it.
 */
import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { Pool } from './undici-pool.js';
import { encodeQuery, encodeRequest, firstHeader, networkCode } from './http-encoding.js';
import type { HttpMethod, HttpResponse } from './http-encoding.js';
import { abortReason, Semaphore, systemClock, TokenBucket } from './rate-limit.js';
import type { Clock } from './rate-limit.js';
import { defaultSleep, RetryPolicy } from './retry.js';
import type { RetryOptions, Sleep } from './retry.js';
import { abortedError, decide } from './retry-decision.js';
import { ApiError } from './errors.js';
import type { AttemptOutcome } from './retry-decision.js';

export type { HttpMethod, HttpResponse } from './http-encoding.js';

export interface RequestEvent {
  operation: string;
  method: HttpMethod;
  /** Path without the query string. */
  path: string;
  /** Null when no answer came (network error, timeout, abort). */
  status: number | null;
  /** 1-based. */
  attempt: number;
  durationMs: number;
  /** The network error code when `status` is null (e.g. `ECONNRESET`, `TIMEOUT`). */
  error?: string;
}

/** The options of the transport, and of `ApiClient`, which passes them through whole. */
export interface TransportOptions {
  /** e.g. `https://api.robopack.com` or `http://127.0.0.1:4010`; a trailing `/v1` is tolerated. */
  baseUrl: string;
  apiKey: string;
  /** Injected undici dispatcher; when absent the transport creates (and owns) a Pool for the origin. */
  dispatcher?: Dispatcher;
  /** Most requests in flight at once. Default 8. */
  concurrency?: number;
  /** Client-side requests per second (burst = perSecond). Off when absent. */
  rateLimit?: { perSecond: number };
  /** Per attempt, headers and body included, in ms. Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  random?: () => number;
  sleep?: Sleep;
  /** Clock of the rate limiter. */
  clock?: Clock;
  /** Wall clock for HTTP-date `Retry-After` values. */
  now?: () => number;
  onRequest?: (e: RequestEvent) => void;
  /**
   * Largest answer read, in bytes (default 64 MiB, far above any list page the service sends). A
   * larger one is cut while it streams, never buffered whole: an error of the operation, not an
   * out-of-memory abort of the agent (docs/errors.md).
   */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** An answer over `maxResponseBytes`: cut while streaming; the request fails with API_INVALID_RESPONSE. */
class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/** The body read to its end, or ResponseTooLarge as soon as it (or its Content-Length) passes `limit`. */
async function readLimited(res: Dispatcher.ResponseData, limit: number): Promise<Buffer> {
  const declared = Number(firstHeader(res.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    res.body.destroy();
    throw new ResponseTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of res.body) {
    n += (chunk as Buffer).length;
    if (n > limit) {
      res.body.destroy();
      throw new ResponseTooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, n);
}

export interface RequestSpec {
  operation: string;
  method: HttpMethod;
  /** `/v1/...`, ids already encoded. */
  path: string;
  query?: object | undefined;
  /** A JSON body. */
  body?: unknown;
  /** A raw `application/octet-stream` body. */
  binary?: Uint8Array;
  signal?: AbortSignal | undefined;
  /** True when repeating the request after it may have taken effect is harmless. */
  idempotent: boolean;
  /** Accept header. Default `application/json`. */
  accept?: string;
}

export class HttpTransport {
  private readonly dispatcher: Dispatcher;
  private readonly owned: boolean;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly apiKey: string;
  /** The key as a JSON body carries it (a `"` or `\\` in it escaped): what an echo looks like on the wire. */
  private readonly apiKeyInJson: string;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly semaphore: Semaphore;
  private readonly bucket: TokenBucket | null;
  private readonly onRequest: ((e: RequestEvent) => void) | undefined;
  private readonly maxResponseBytes: number;
  private closed = false;
  /** Newest `Date` header seen on any answer (ms), or null: the service's clock. */
  private serviceNowMs: number | null = null;

  constructor(opts: TransportOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch (e) {
      throw new TypeError('baseUrl is not a URL', { cause: e });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('baseUrl must be http: or https:');
    if (!opts.apiKey) throw new TypeError('apiKey is empty');
    this.origin = url.origin;
    // The documented base address ends in /v1 while operation paths start with /v1: do not double it.
    this.prefix = url.pathname.replace(/\/+$/, '').replace(/\/v1$/i, '');
    this.apiKey = opts.apiKey;
    this.apiKeyInJson = JSON.stringify(opts.apiKey).slice(1, -1);
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.policy = new RetryPolicy(opts.retry ?? {}, opts.random ?? Math.random);
    this.sleep = opts.sleep ?? defaultSleep;
    this.now = opts.now ?? Date.now;
    const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 8));
    this.semaphore = new Semaphore(concurrency);
    this.bucket =
      opts.rateLimit && opts.rateLimit.perSecond > 0 ? new TokenBucket(opts.rateLimit.perSecond, opts.clock ?? systemClock) : null;
    this.onRequest = opts.onRequest;
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (opts.dispatcher) {
      this.dispatcher = opts.dispatcher;
      this.owned = false;
    } else {
      this.dispatcher = new Pool(this.origin, { connections: concurrency, keepAliveTimeout: 4_000 });
      this.owned = true;
    }
  }

  /** The most requests on the wire at once. */
  get slots(): number {
    return this.semaphore.max;
  }

  /**
   * The service's clock: the newest `Date` header of its answers (docs/manifests.md: promotion gates are
   * timed by it, so local clock skew does not matter and a simulator's virtual clock drives them).
   */
  serviceTime(): Date | null {
    return this.serviceNowMs === null ? null : new Date(this.serviceNowMs);
  }

  get maxAttempts(): number {
    return this.policy.maxAttempts;
  }

  /** Closes the Pool the transport created; an injected dispatcher is the caller's to close. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.dispatcher.close();
  }

  /** The full request path (prefix + path + query). */
  urlPath(path: string, query?: object): string {
    const qs = encodeQuery(query);
    return `${this.prefix}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Sends a request, repeating it as the retry decision allows; resolves only on a 2xx answer. */
  async request(spec: RequestSpec): Promise<HttpResponse> {
    const fullPath = this.urlPath(spec.path, spec.query);
    const signal = spec.signal;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(spec, fullPath, attempt);
      if (outcome.kind === 'response' && outcome.response.status >= 200 && outcome.response.status < 300) {
        // One byte search per answer (two for a key JSON escapes): a field that echoes the key (an
        // error text in a 200 body) never reaches a message.
        const body = outcome.response.body;
        const echoed = body.includes(this.apiKey) || (this.apiKeyInJson !== this.apiKey && body.includes(this.apiKeyInJson));
        if (echoed) outcome.response.echoes = [this.apiKey];
        return outcome.response;
      }
      // A huge answer is huge again: never repeated.
      if (outcome.kind === 'error' && outcome.cause instanceof ResponseTooLarge) {
        const what = `${spec.operation} (${spec.method} ${spec.path})`;
        const message = `${what}: the answer is larger than ${outcome.cause.limit} bytes, so packsync stopped reading it (raise PACKSYNC_MAX_RESPONSE_BYTES if the service really sends that much)`;
        throw new ApiError('API_INVALID_RESPONSE', message, { operation: spec.operation });
      }
      const decision = decide(spec, outcome, attempt, {
        retry: this.policy,
        nowMs: this.now(),
        timeoutMs: this.timeoutMs,
        secrets: [this.apiKey],
      });
      if (!decision.retry) throw decision.error;
      try {
        await this.sleep(decision.delayMs, signal);
      } catch (e) {
        throw abortedError(spec.operation, e);
      }
      if (signal?.aborted) throw abortedError(spec.operation, abortReason(signal));
    }
  }

  /** One attempt: pacing, the request, and the whole body read, all under one timeout. */
  private async attempt(spec: RequestSpec, fullPath: string, attempt: number): Promise<AttemptOutcome> {
    const callerSignal = spec.signal;
    let release: (() => void) | undefined;
    try {
      if (this.bucket) await this.bucket.acquire(callerSignal);
      release = await this.semaphore.acquire(callerSignal);
    } catch (e) {
      return { kind: 'error', cause: e, code: 'ABORTED', timedOut: false, aborted: true };
    }
    const { signal, timedOut: hasTimedOut, dispose } = attemptSignal(callerSignal, this.timeoutMs);
    const started = performance.now();
    const { headers, body } = encodeRequest(spec, this.apiKey);
    let status: number | null = null;
    let errorCode: string | undefined;
    try {
      const res = await this.dispatcher.request({
        origin: this.origin,
        path: fullPath,
        method: spec.method,
        headers,
        body: body ?? null,
        signal,
        idempotent: spec.idempotent,
      });
      status = res.statusCode;
      const date = Date.parse(firstHeader(res.headers, 'date') ?? '');
      if (Number.isFinite(date) && (this.serviceNowMs === null || date > this.serviceNowMs)) this.serviceNowMs = date;
      // Always read the body to the end (or destroy it), so the connection goes back to the pool.
      const buf = await readLimited(res, this.maxResponseBytes);
      return { kind: 'response', response: { status: res.statusCode, headers: res.headers, body: buf } };
    } catch (e) {
      if (e instanceof ResponseTooLarge) return { kind: 'error', cause: e, code: 'TOO_LARGE', timedOut: false, aborted: false };
      const aborted = callerSignal?.aborted === true;
      const timedOut = !aborted && hasTimedOut();
      errorCode = aborted ? 'ABORTED' : timedOut ? 'TIMEOUT' : networkCode(e);
      status = null;
      return { kind: 'error', cause: e, code: errorCode, timedOut, aborted };
    } finally {
      dispose();
      const handedOver = this.semaphore.waiting > 0;
      release();
      if (this.onRequest) {
        const event: RequestEvent = {
          operation: spec.operation,
          method: spec.method,
          path: spec.path,
          status,
          attempt,
          durationMs: Math.round(performance.now() - started),
          ...(errorCode !== undefined ? { error: errorCode } : {}),
        };
        try {
          this.onRequest(event);
        } catch {
          // an observer must not break the request
        }
      }
      // The slot went to a waiting request, which is on the wire now. This answer is read (parsed,
      // planned with) after the event loop's other ready sockets have handed their slots on too:
      // answers come back in bursts, and reading each before the next socket's request goes out
      // held the last of sixteen back by fifteen reads (docs/performance.md, "answers in bursts").
      if (handedOver) await nextLoopTurn();
    }
  }
}

/**
 * The signal of one attempt: aborted when the caller's is, or when `timeoutMs` have passed. One
 * controller and one timer, cleared when the attempt ends: `AbortSignal.timeout` plus
 * `AbortSignal.any` for every call were ~0.5 s of a 21,000-call apply's CPU (docs/performance.md,
 * fleet-cli), and their timers and weak links outlived the call.
 */
export function attemptSignal(
  caller: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    if (controller.signal.aborted) return;
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // As AbortSignal.timeout's: a pending attempt's timer alone does not keep the process alive.
  timer.unref();
  const onAbort = (): void => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}
