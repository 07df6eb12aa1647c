/** Errors of the applier. Callers match on `code`, never on message text. */
import { PacksyncError } from '../util/errors.js';

export type ApplyErrorCode =
  'APPLY_MISSING_DEPENDENCY' | 'WAIT_TIMEOUT' | 'WAIT_DEFERRED' | 'PACKAGE_FAILED' | 'UPLOAD_FAILED' | 'ABORTED' | 'STALE_PLAN';

export class ApplyError extends PacksyncError<ApplyErrorCode> {}
