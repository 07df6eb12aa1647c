/**
 * Errors of the API client. Every failure of a call surfaces as one `ApiError` with a stable `code`
 * (the table is in `docs/errors.md`); callers match on `code`, never on message text.
 *
 * Messages are stable for the same failure: they carry the operation, the status and the problem
 * title/detail the server sent, never a request id, a timestamp, an attempt timing or the API key.
 */
import { STATUS_CODES } from 'node:http';
import type { OperationName } from './operations.js';
import type { ProblemDetails } from './wire/index.js';
import { PacksyncError } from '../util/errors.js';
import { redactSecrets } from '../util/secrets.js';

export const API_ERROR_CODES = [
  'API_UNAUTHORIZED',
  'API_FORBIDDEN',
  'API_NOT_FOUND',
  'API_BAD_REQUEST',
  'API_CONFLICT',
  'API_RATE_LIMITED',
  'API_UNAVAILABLE',
  'API_TIMEOUT',
  'API_INVALID_RESPONSE',
  'API_OUTCOME_UNKNOWN',
  'API_ABORTED',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** An operation name, or the name of a composite (e.g. `uploadContentDirectory`, `list`). */
export type OperationLabel = OperationName | (string & Record<never, never>);

export interface ApiErrorInit {
  operation: OperationLabel;
  status?: number | null;
  problem?: ProblemDetails | null;
  retryAfterMs?: number | null;
  cause?: unknown;
}

export class ApiError extends PacksyncError<ApiErrorCode> {
  readonly operation: OperationLabel;
  readonly status: number | null;
  readonly problem: ProblemDetails | null;
  /** What the server asked for in `Retry-After`, when it sent one. */
  readonly retryAfterMs: number | null;

  constructor(code: ApiErrorCode, message: string, init: ApiErrorInit) {
    super(code, message, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.operation = init.operation;
    this.status = init.status ?? null;
    this.problem = init.problem ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

/** The code an HTTP error status maps to (for a request that is safe to repeat). */
export function codeForStatus(status: number): ApiErrorCode {
  if (status === 401) return 'API_UNAUTHORIZED';
  if (status === 403) return 'API_FORBIDDEN';
  if (status === 404 || status === 410) return 'API_NOT_FOUND';
  if (status === 408) return 'API_TIMEOUT';
  if (status === 409) return 'API_CONFLICT';
  if (status === 429) return 'API_RATE_LIMITED';
  // A redirect is not an answer of the interface: packsync does not follow one (a key must not travel to another host).
  if (status >= 300 && status < 400) return 'API_INVALID_RESPONSE';
  if (status >= 500) return 'API_UNAVAILABLE';
  return 'API_BAD_REQUEST';
}

/** `404 Not Found`, with the reason phrase from Node's table (the server's phrase may vary). */
export function statusLine(status: number): string {
  const phrase = STATUS_CODES[status];
  return phrase ? `${status} ${phrase}` : String(status);
}

const MAX_DETAIL = 500;

/** The human part of a problem body: title and detail, plus sorted field errors, bounded in size. */
export function describeProblem(problem: ProblemDetails | null): string {
  if (!problem) return '';
  const parts: string[] = [];
  const title = typeof problem.title === 'string' ? problem.title.trim() : '';
  const detail = typeof problem.detail === 'string' ? problem.detail.trim() : '';
  if (title) parts.push(title);
  if (detail && detail !== title) parts.push(detail);
  // Non-RFC 7807 bodies seen in clients: {message} or {error}.
  for (const key of ['message', 'error'] as const) {
    const v = problem[key];
    if (parts.length === 0 && typeof v === 'string' && v.trim()) parts.push(v.trim());
  }
  let text = parts.join(': ');
  const errors = problem.errors;
  if (errors && typeof errors === 'object') {
    const fields = Object.keys(errors)
      .sort()
      .map((field) => {
        const msgs = (errors as Record<string, unknown>)[field];
        const list = Array.isArray(msgs) ? msgs.filter((m): m is string => typeof m === 'string') : [];
        return list.length > 0 ? `${field}: ${list.join(' ')}` : field;
      });
    if (fields.length > 0) text = text ? `${text} (${fields.join('; ')})` : fields.join('; ');
  }
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

/** The error for an HTTP error answer. */
export function httpError(
  operation: OperationLabel,
  status: number,
  problem: ProblemDetails | null,
  opts: { retryAfterMs?: number | null; code?: ApiErrorCode; secrets?: readonly string[]; note?: string } = {},
): ApiError {
  const code = opts.code ?? codeForStatus(status);
  const detail = describeProblem(problem);
  let message = `${operation}: ${statusLine(status)}${detail ? `: ${detail}` : ''}`;
  if (opts.note) message += ` (${opts.note})`;
  if (status >= 300 && status < 400)
    message += '; the service redirected, which packsync does not follow: check --api-url (http or https, host, no path beyond the base)';
  // Defence in depth: a server may echo the key in its problem.
  return new ApiError(code, redactSecrets(message, opts.secrets ?? []), {
    operation,
    status,
    problem,
    retryAfterMs: opts.retryAfterMs ?? null,
  });
}

/** True for failures that may go away when the same call is simply repeated later. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.code === 'API_RATE_LIMITED' || err.code === 'API_UNAVAILABLE' || err.code === 'API_TIMEOUT';
}

export function isApiError(err: unknown, code?: ApiErrorCode): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}
