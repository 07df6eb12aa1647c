/** Errors of the state stores and the lock. Callers match on `code`, never on message text. */
import { PacksyncError } from '../util/errors.js';

export class InventoryError extends PacksyncError<'INVENTORY_UNREADABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVENTORY_UNREADABLE', message, options);
  }
}

export type StateErrorCode =
  /** Another process holds the state's lock (the message names it). */
  | 'STATE_LOCKED'
  | 'STATE_LOCK_LOST'
  /** The remote lock (a blob lease) was lost while running: no further state write is made. */
  | 'STATE_LEASE_LOST'
  /** A write to the state store failed (disk, network, permissions). */
  | 'STATE_WRITE_FAILED'
  /** A call to the remote state store failed (status and service code in the message). */
  | 'STATE_REMOTE_ERROR'
  /** `--state-url` or its credentials are missing or malformed. */
  | 'STATE_CONFIG'
  /** A command that needs an existing state was given a state directory that does not exist. */
  | 'STATE_NOT_FOUND'
  /** Remote state was opened for writing without its lock (a bug, never a user error). */
  | 'STATE_NOT_LOCKED';

export class StateError extends PacksyncError<StateErrorCode> {}
