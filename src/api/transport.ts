/**
 * The HTTP layer of the client: one undici dispatcher (injected, or a Pool the transport owns),
 * auth header, URL and query encoding, per-request timeout, client-side pacing, and the retry
 * decision. Which requests may be repeated is the heart of it (the table is in `docs/errors.md`):
 *
 * - `idempotent: true` (GET, DELETE, and POSTs whose repetition has the same effect as one call):
 *   repeated on network errors, timeouts, 408, 429 and 5xx.
 * - `idempotent: false` (creates, import, tenant upload, skip-wave, update-content): repeated only
 *   when the request certainly did not take effect (429, or no connection could be made). A lost
 *   answer after the request may have reached the server (5xx, 408, reset, timeout) throws
 *   `API_OUTCOME_UNKNOWN`, and the caller looks the object up instead of creating it twice.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { ApiError, httpError, redact } from './errors.js';
import type { ApiErrorCode } from './errors.js';
import { abortReason, Semaphore, systemClock, TokenBucket } from './rate-limit.js';
import type { Clock } from './rate-limit.js';
import { defaultSleep, parseRetryAfter, RetryPolicy } from './retry.js';
import type { RetryOptions, Sleep } from './retry.js';
import type { ProblemDetails } from './wire-types.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

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

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  /** Injected dispatcher; when absent the transport creates (and owns) a Pool for the origin. */
  dispatcher?: Dispatcher;
  /** Most requests in flight at once. Default 8. */
  concurrency?: number;
  rateLimit?: { perSecond: number };
  /** Per attempt, headers and body included. Default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
  random?: () => number;
  sleep?: Sleep;
  /** Clock of the rate limiter. */
  clock?: Clock;
  /** Wall clock for HTTP-date `Retry-After` values. */
  now?: () => number;
  onRequest?: (e: RequestEvent) => void;
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

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

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

/** The most specific error code in an error, its cause chain, or an AggregateError. */
export function networkCode(err: unknown): string {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e !== null && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      e = errors[0];
      continue;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return 'UNKNOWN';
}

/**
 * Query string: keys as given (camelCase), undefined/null skipped, booleans `true`/`false`,
 * arrays as a repeated `key[]` (the form `Get-RobopackFlow.ps1` sends for `tenants[]`).
 */
export function encodeQuery(query: object | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  const value = (v: unknown, key: string): string => {
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new TypeError(`query ${key} is not a finite number`);
      return String(v);
    }
    if (typeof v === 'string') return encodeURIComponent(v);
    throw new TypeError(`query ${key} has an unsupported type`);
  };
  const encKey = (k: string): string => encodeURIComponent(k).replace(/%5B%5D$/, '[]');
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) {
      const key = encKey(k.endsWith('[]') ? k : `${k}[]`);
      for (const item of v as unknown[]) if (item !== undefined && item !== null) parts.push(`${key}=${value(item, k)}`);
    } else {
      parts.push(`${encKey(k)}=${value(v, k)}`);
    }
  }
  return parts.join('&');
}

/** The file name of a `Content-Disposition` header (`filename*` wins over `filename`). */
export function parseContentDisposition(value: string | string[] | undefined): string | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const star = /filename\*\s*=\s*([^;]+)/i.exec(raw);
  if (star?.[1]) {
    const v = star[1].trim().replace(/^"(.*)"$/, '$1');
    const m = /^([^']*)'[^']*'(.*)$/.exec(v);
    try {
      return decodeURIComponent(m?.[2] ?? v);
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(raw);
  if (!plain) return null;
  const name = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '').trim();
  return name || null;
}

/** The first value of a response header. */
export function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Problem details from an error body: RFC 7807 JSON, any JSON object, or null. */
export function readProblem(body: Buffer): ProblemDetails | null {
  if (body.length === 0) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ProblemDetails;
    if (typeof parsed === 'string' && parsed.trim()) return { detail: parsed.trim() };
  } catch {
    // a plain-text or HTML error page: not worth quoting
  }
  return null;
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

type Attempt =
  | { kind: 'response'; response: HttpResponse }
  | { kind: 'error'; cause: unknown; code: string; timedOut: boolean; aborted: boolean };

export class HttpTransport {
  private readonly dispatcher: Dispatcher;
  private readonly owned: boolean;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly semaphore: Semaphore;
  private readonly bucket: TokenBucket | null;
  private readonly onRequest: ((e: RequestEvent) => void) | undefined;
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
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.policy = new RetryPolicy(opts.retry ?? {}, opts.random ?? Math.random);
    this.sleep = opts.sleep ?? defaultSleep;
    this.now = opts.now ?? Date.now;
    const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 8));
    this.semaphore = new Semaphore(concurrency);
    this.bucket = opts.rateLimit && opts.rateLimit.perSecond > 0 ? new TokenBucket(opts.rateLimit.perSecond, opts.clock ?? systemClock) : null;
    this.onRequest = opts.onRequest;
    if (opts.dispatcher) {
      this.dispatcher = opts.dispatcher;
      this.owned = false;
    } else {
      this.dispatcher = new Pool(this.origin, { connections: concurrency, keepAliveTimeout: 4_000 });
      this.owned = true;
    }
  }

  /**
   * The service's clock: the newest `Date` header of its answers (design §3: promotion gates are
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

  /** Sends a request, repeating it as the retry policy allows; resolves only on a 2xx answer. */
  async request(spec: RequestSpec): Promise<HttpResponse> {
    const fullPath = this.urlPath(spec.path, spec.query);
    const signal = spec.signal;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(spec, fullPath, attempt);
      let retryAfterMs: number | null = null;
      let failure: ApiError;
      let retry: boolean;

      if (outcome.kind === 'response') {
        const { status, headers, body } = outcome.response;
        if (status >= 200 && status < 300) return outcome.response;
        const problem = readProblem(body);
        retryAfterMs = parseRetryAfter(headers['retry-after'], this.now());
        const canRepeat = spec.idempotent ? isRetryableStatus(status) : status === 429;
        const unknown = !spec.idempotent && (status === 408 || (status >= 500 && status !== 501 && status !== 505));
        retry = canRepeat && this.policy.canRetry(attempt);
        const code: ApiErrorCode | undefined = unknown ? 'API_OUTCOME_UNKNOWN' : undefined;
        const note = unknown
          ? 'the request may have taken effect'
          : canRepeat && attempt > 1
            ? `gave up after ${attempt} attempts`
            : undefined;
        failure = httpError(spec.operation, status, problem, {
          retryAfterMs,
          secrets: [this.apiKey],
          ...(code ? { code } : {}),
          ...(note ? { note } : {}),
        });
      } else {
        if (outcome.aborted) throw this.abortedError(spec.operation, outcome.cause);
        const connectPhase = CONNECT_CODES.has(outcome.code);
        const canRepeat = spec.idempotent || connectPhase;
        retry = canRepeat && this.policy.canRetry(attempt);
        failure = this.networkError(spec, outcome, canRepeat, attempt);
      }

      if (!retry) throw failure;
      try {
        await this.sleep(this.policy.delayMs(attempt, retryAfterMs), signal);
      } catch (e) {
        throw this.abortedError(spec.operation, e);
      }
      if (signal?.aborted) throw this.abortedError(spec.operation, abortReason(signal));
    }
  }

  private abortedError(operation: string, cause: unknown): ApiError {
    return new ApiError('API_ABORTED', `${operation}: aborted`, { operation, cause });
  }

  private networkError(spec: RequestSpec, o: Extract<Attempt, { kind: 'error' }>, canRepeat: boolean, attempt: number): ApiError {
    const op = spec.operation;
    const tail = canRepeat && attempt > 1 ? `; gave up after ${attempt} attempts` : '';
    if (!canRepeat) {
      const what = o.timedOut ? `timed out after ${this.timeoutMs} ms` : `connection lost (${o.code})`;
      return new ApiError('API_OUTCOME_UNKNOWN', `${op}: ${what}; the request may have taken effect`, { operation: op, cause: o.cause });
    }
    if (o.timedOut) {
      return new ApiError('API_TIMEOUT', `${op}: timed out after ${this.timeoutMs} ms${tail}`, { operation: op, cause: o.cause });
    }
    const words = CONNECT_WORDS[o.code] ?? 'connection failed';
    const message = redact(`${op}: service unavailable: ${words} (${o.code})${tail}`, [this.apiKey]);
    return new ApiError('API_UNAVAILABLE', message, { operation: op, cause: o.cause });
  }

  /** One attempt: pacing, the request, and the whole body read, all under one timeout. */
  private async attempt(spec: RequestSpec, fullPath: string, attempt: number): Promise<Attempt> {
    const callerSignal = spec.signal;
    let release: (() => void) | undefined;
    try {
      if (this.bucket) await this.bucket.acquire(callerSignal);
      release = await this.semaphore.acquire(callerSignal);
    } catch (e) {
      return { kind: 'error', cause: e, code: 'ABORTED', timedOut: false, aborted: true };
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    const started = performance.now();
    const headers: Record<string, string> = {
      'x-api-key': this.apiKey,
      accept: spec.accept ?? 'application/json',
    };
    let body: Buffer | Uint8Array | undefined;
    if (spec.binary !== undefined) {
      headers['content-type'] = 'application/octet-stream';
      body = spec.binary;
    } else if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(JSON.stringify(spec.body), 'utf8');
    } else if (spec.method === 'POST') {
      headers['content-length'] = '0';
    }
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
      // Always read the body to the end, so the connection goes back to the pool.
      const buf = Buffer.from(await res.body.arrayBuffer());
      return { kind: 'response', response: { status: res.statusCode, headers: res.headers, body: buf } };
    } catch (e) {
      const aborted = callerSignal?.aborted === true;
      const timedOut = !aborted && timeout.aborted;
      errorCode = aborted ? 'ABORTED' : timedOut ? 'TIMEOUT' : networkCode(e);
      status = null;
      return { kind: 'error', cause: e, code: errorCode, timedOut, aborted };
    } finally {
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
    }
  }
}
