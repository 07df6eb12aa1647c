/**
 * What was already delivered, kept in the state directory so that an event is sent once across
 * passes and restarts, reminders keep their backoff, and a commit status identical to the newest
 * one for that sha and context is not posted again. Written atomically (temp file + rename).
 */
import { mkdir, readFile } from 'node:fs/promises';
import { writeAtomic } from '../../state/durable-file.js';
import { join } from 'node:path';

export interface SentRecord {
  /** When it was last delivered (first send or reminder). */
  at: string;
  reminders: number;
  object: string;
  reason: string;
  /** A failure not yet answered by `Recovered`. */
  open: boolean;
}

export interface NotifyState {
  version: 1;
  /** By `provider|event identity`. */
  sent: Record<string, SentRecord>;
  /** By `provider|sha`: the newest state posted. */
  statuses: Record<string, string>;
}

export const NOTIFY_STATE_FILE = 'notifications.json';
const LIMIT = 2000;

export class NotifyStore {
  private chain: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string | null,
    readonly state: NotifyState,
  ) {}

  /** A store in `stateDir`, or in memory only (`notify test`). */
  static async open(stateDir: string | null): Promise<NotifyStore> {
    if (stateDir === null) return new NotifyStore(null, { version: 1, sent: {}, statuses: {} });
    const file = join(stateDir, NOTIFY_STATE_FILE);
    let state: NotifyState = { version: 1, sent: {}, statuses: {} };
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as Partial<NotifyState>;
      if (raw.version === 1) state = { version: 1, sent: raw.sent ?? {}, statuses: raw.statuses ?? {} };
    } catch {
      // First run, or an unreadable file: start afresh (at worst an event is sent twice).
    }
    return new NotifyStore(file, state);
  }

  /** Saves, oldest records dropped past the bound; writes are serialised. */
  save(): Promise<void> {
    const file = this.file;
    if (file === null) return Promise.resolve();
    trim(this.state.sent);
    trim(this.state.statuses);
    const text = JSON.stringify(this.state);
    this.chain = this.chain
      .then(async () => {
        const dir = join(file, '..');
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeAtomic(file, text);
      })
      .catch(() => undefined);
    return this.chain;
  }
}

function trim(o: Record<string, unknown>): void {
  const keys = Object.keys(o);
  for (const k of keys.slice(0, Math.max(0, keys.length - LIMIT))) delete o[k];
}
