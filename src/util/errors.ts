/**
 * One error model for all of packsync (docs/errors.md: "every failure is classified once"). Every error
 * packsync throws is a `PacksyncError` with a stable `code` from one closed union; `classify(code)`
 * says what a reconciler does about it: `terminal` (no retry until the input or configuration
 * changes), `transient` (retry with backoff) or `waiting` (the service is still working: requeue
 * soon). `docs/errors.md` lists every code; a test compares that table with `ERROR_CODES`.
 *
 * This module sits below every layer (it imports nothing of src/), like a third-party library.
 */

export type ErrorClass = 'terminal' | 'transient' | 'waiting';

/** Every code, with its class. Load-bearing names: never rename one. */
export const ERROR_CODES = {
  // The API client (src/api/errors.ts has the per-status rules).
  API_UNAUTHORIZED: 'terminal',
  API_FORBIDDEN: 'terminal',
  API_NOT_FOUND: 'terminal',
  API_BAD_REQUEST: 'terminal',
  API_CONFLICT: 'transient',
  API_RATE_LIMITED: 'transient',
  API_UNAVAILABLE: 'transient',
  API_TIMEOUT: 'transient',
  API_INVALID_RESPONSE: 'terminal',
  API_OUTCOME_UNKNOWN: 'transient',
  API_ABORTED: 'transient',
  // Configuration and usage.
  USAGE: 'terminal',
  VERIFY_CONFIG: 'terminal',
  EXPORT_TARGET: 'terminal',
  REPORT_UNKNOWN_TENANT: 'terminal',
  REPORT_PDF_UNAVAILABLE: 'terminal',
  RADAR_WRITE: 'terminal',
  UPDATE_PUSH: 'terminal',
  AGENT_UNREACHABLE: 'transient',
  STATE_KEY: 'terminal',
  SIM_BAD_FAULT_SPEC: 'terminal',
  UPLOAD_INVALID_CONTENT: 'terminal',
  // Resolving names against the live state, and plan-time checks.
  REF_UNKNOWN: 'terminal',
  REF_AMBIGUOUS: 'terminal',
  WAVE_OUT_OF_RANGE: 'terminal',
  PROMOTION_TO_WAVE: 'terminal',
  OWNED_BY_ANOTHER_KEY: 'terminal',
  SAME_LIVE_IDENTITY: 'terminal',
  // Applying.
  APPLY_MISSING_DEPENDENCY: 'terminal',
  DEPENDENCY_FAILED: 'terminal',
  PACKAGE_FAILED: 'terminal',
  UPLOAD_FAILED: 'transient',
  WAIT_TIMEOUT: 'transient',
  WAIT_DEFERRED: 'waiting',
  WAITING: 'waiting',
  ABORTED: 'transient',
  STALE_PLAN: 'terminal',
  // State.
  INVENTORY_UNREADABLE: 'terminal',
  STATE_LOCKED: 'transient',
  STATE_LOCK_LOST: 'terminal',
  STATE_LEASE_LOST: 'transient',
  STATE_WRITE_FAILED: 'transient',
  STATE_REMOTE_ERROR: 'transient',
  STATE_CONFIG: 'terminal',
  STATE_NOT_FOUND: 'terminal',
  STATE_NOT_LOCKED: 'terminal',
  STATE_SHARED_ID: 'terminal',
  // Promotion gates.
  GATE_READ_FAILED: 'transient',
  GATE_READ_MISSING: 'transient',
  GATE_HELD: 'terminal',
  GATE_NOT_HELD: 'terminal',
  GATE_NOT_RUNNING: 'terminal',
  GATE_NO_DEPLOYMENT: 'terminal',
  GATE_REQUEST_TIMEOUT: 'terminal',
  // Rollout policy (docs/policy.md).
  WINDOW_CLOSED: 'terminal',
  POLICY_INVALID: 'terminal',
  APPROVALS_MISSING: 'terminal',
  // Sources.
  SOURCE_INVALID: 'terminal',
  SOURCE_PATH_INVALID: 'terminal',
  SOURCE_REF_NOT_FOUND: 'transient',
  SOURCE_FETCH_FAILED: 'transient',
  SOURCE_UNVERIFIED: 'terminal',
  // Anything that is not a PacksyncError: a bug, reported as such.
  INTERNAL: 'transient',
} as const satisfies Record<string, ErrorClass>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The base of every error packsync throws: a stable `code`, a `name`, an optional `cause`. */
export class PacksyncError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.name = new.target.name;
  }
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The stable code of any error; `INTERNAL` for what is not one of ours. */
export function errorCode(e: unknown): ErrorCode {
  if (e !== null && typeof e === 'object' && 'code' in e && typeof e.code === 'string' && isErrorCode(e.code)) return e.code;
  return 'INTERNAL';
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What a reconciler does about a failure with this code. */
export function classify(code: ErrorCode): ErrorClass {
  return ERROR_CODES[code];
}
