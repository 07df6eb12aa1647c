import type { UploadProgress } from '../api/operations.js';
import type { Outcome } from './outcomes.js';
import type { ErrorCode } from '../util/errors.js';
import type { ActionOp } from '../plan/ops.js';

/** What the applier reports while it works; the CLI renders these as progress or log lines. */
export type ApplyEvent =
  | { type: 'action-start'; key: string; actionId: string; op: ActionOp; description: string }
  | { type: 'action-done'; key: string; actionId: string; op: ActionOp; description: string; durationMs: number }
  | { type: 'action-failed'; key: string; actionId: string; op: ActionOp; description: string; code: ErrorCode; message: string }
  | { type: 'action-skipped'; key: string; actionId: string; op: ActionOp; description: string; reason: string }
  /** A wait left to a later pass (the agent does not block on the service's background work). */
  | { type: 'action-waiting'; key: string; actionId: string; op: ActionOp; description: string; reason: string }
  | ({ type: 'upload-progress'; key: string } & UploadProgress)
  | { type: 'wait'; key: string; what: string; elapsedMs: number }
  | { type: 'object'; key: string; outcome: Outcome };
