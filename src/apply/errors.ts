/** Errors of the applier. Callers match on `code`, never on message text. */
export class ApplyError extends Error {
  constructor(
    readonly code: 'APPLY_MISSING_DEPENDENCY' | 'WAIT_TIMEOUT' | 'WAIT_DEFERRED' | 'PACKAGE_FAILED' | 'UPLOAD_FAILED' | 'ABORTED' | 'STALE_PLAN',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApplyError';
  }
}

/** The stable code of any error packsync or its client throws; `INTERNAL` for anything else. */
export function errorCode(e: unknown): string {
  if (e !== null && typeof e === 'object' && 'code' in e && typeof e.code === 'string') return e.code;
  return 'INTERNAL';
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
