/**
 * The inventory as the applier records it: an in-memory `Inventory` (what the planner reads) kept
 * durable as a snapshot plus an append-only journal (format in `journal.ts`, bytes moved by a
 * `StateBackend`: a directory or a blob container).
 *
 * Why a journal written by us, not SQLite or another embedded store: every change is one
 * last-writer-wins assignment to one key, which a JSON line expresses exactly; it needs no native
 * module (`npm ci` stays registry-only and fast), and the same format works unchanged on an Azure
 * append blob, where a database file could not be shared.
 *
 * Cost per change is constant: a change is applied in memory and queued as one line; a single
 * writer appends everything queued in one write. Durability has two speeds, as before: an intent
 * is durable before `setIntent` resolves (it is what makes a lost create recoverable), and one
 * fsync serves every intent that was waiting on it (group commit). Other changes go out with the
 * next write, without waiting for a sync; a crash that loses them is recovered from the intent or
 * the live state on the next run. The whole inventory is written only by compaction (snapshot,
 * then empty the journal): at `close()` (end of an apply) once the journal is worth folding
 * (`foldDue`), and mid-apply when the journal outgrows max(compactMinBytes, 2 × snapshot), so its
 * cost is amortised over the bytes of journal it folds.
 */
import type { BackendStats, StateBackend } from './backend.js';
import { DirectoryBackend } from './dir-backend.js';
import type { Intent, Inventory, InventoryEntry } from './inventory-types.js';
import type { HistoryEvent } from './history.js';
import { applyRecord, loadState, snapshotParts } from './journal.js';
import type { JournalChange, LoadedState } from './journal.js';
import { StateError } from './state-errors.js';

/** Reads a state directory (snapshot + journal) without writing anything. */
export async function loadInventory(stateDir: string): Promise<Inventory> {
  return (await readBackend(new DirectoryBackend(stateDir))).inventory;
}

export async function readBackend(backend: StateBackend): Promise<LoadedState> {
  const { snapshot, journal } = await backend.read();
  return loadState(snapshot, journal, backend.names);
}

interface Waiter {
  resolve: () => void;
  reject: (e: Error) => void;
}

export class InventoryStore {
  /** Journal size below which no compaction runs mid-apply. */
  compactMinBytes = 16 * 1024 * 1024;
  /** Snapshot size below which every close folds the journal (see `foldDue`). */
  foldMinSnapshotBytes = 1024 * 1024;
  private seq: number;
  private journalBytes: number;
  private snapshotBytes: number;
  private torn: boolean;
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  /** Waiters of the write in progress (rejected with it if it fails). */
  private inFlight: Waiter[] = [];
  /** Bytes appended since the last sync. */
  private unsynced = false;
  private writer: Promise<void> | null = null;
  private scheduled = false;
  private failure: Error | null = null;
  private readonly stopper = new AbortController();

  private constructor(
    readonly backend: StateBackend,
    readonly inventory: Inventory,
    loaded: LoadedState,
  ) {
    this.seq = loaded.seq;
    this.journalBytes = loaded.journalBytes;
    this.snapshotBytes = loaded.snapshotBytes;
    this.torn = loaded.torn;
  }

  static async open(stateDir: string): Promise<InventoryStore> {
    return InventoryStore.openOn(new DirectoryBackend(stateDir));
  }

  static async openOn(backend: StateBackend): Promise<InventoryStore> {
    const loaded = await readBackend(backend);
    return new InventoryStore(backend, loaded.inventory, loaded);
  }

  /** Aborted when a write failed (e.g. the remote lease was lost): start no further action. */
  get stopSignal(): AbortSignal {
    return this.stopper.signal;
  }

  /**
   * Throws the write failure, if one happened: called right before every API write, so a write the
   * state can no longer record is never made (docs/errors.md, STATE_WRITE_FAILED).
   */
  assertWritable(): void {
    if (this.failure) throw this.failure;
  }

  get stats(): BackendStats {
    return this.backend.stats;
  }

  /** Durable before it resolves; one sync serves every intent queued with it. */
  setIntent(intent: Intent): Promise<void> {
    return this.record({ op: 'intent', intent }, true);
  }

  put(entry: InventoryEntry, resolveIntent = true): Promise<void> {
    const key = `${entry.kind}/${entry.name}`;
    return this.record({ op: 'object', key, entry, ...(resolveIntent ? { resolvesIntent: true as const } : {}) }, false);
  }

  patch(key: string, fields: Partial<InventoryEntry>): Promise<void> {
    const e = this.inventory.objects[key];
    if (!e) return Promise.resolve();
    return this.record({ op: 'object', key, entry: { ...e, ...fields } }, false);
  }

  remove(key: string): Promise<void> {
    return this.record({ op: 'remove', key }, false);
  }

  /** Records one history event (state/history.ts): O(1), not synced on its own (it goes out with the next write). */
  history(event: HistoryEvent): Promise<void> {
    return this.record({ op: 'history', event }, false);
  }

  clearIntent(key: string): Promise<void> {
    if (!(key in this.inventory.intents)) return Promise.resolve();
    return this.record({ op: 'clear-intent', key }, false);
  }

  /** Makes every change so far durable. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.writer && !this.scheduled && this.pending.length === 0 && !this.unsynced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /**
   * Writes the in-memory inventory as a new snapshot now, whatever the journal holds: for callers
   * that edit `inventory` in place (`packsync state mv|rm`, `promote`, `resume`) rather than
   * through put/patch/remove, whose edits the journal therefore never saw.
   */
  async rewrite(): Promise<void> {
    await this.flush();
    await this.exclusive(() => this.compact());
  }

  /**
   * Ends a run: everything durable, the journal folded into a new snapshot when `foldDue` says so,
   * handles released. The store can be written again afterwards.
   */
  async close(): Promise<void> {
    if (this.failure) {
      await this.backend.close().catch(() => undefined);
      throw this.failure;
    }
    await this.flush();
    if (this.foldDue()) await this.exclusive(() => this.compact());
    await this.backend.close();
  }

  /**
   * Whether a close folds the journal. Always for a small state (its fold is cheap) and for a torn
   * journal; for a large one only once the journal holds half the snapshot's bytes or
   * `compactMinBytes`, or its backend is near a limit. A pass that records a little (a no-op's
   * rollout history) then appends it instead of writing the whole snapshot again (~0.15 s and 12 MB
   * at 3,750 flows, an upload of them with remote state). The next load parses at most half as many
   * bytes again, and never more than `compactMinBytes` of journal text (the agent's heap is capped,
   * and it loads the state every pass); usually no more than the folded snapshot would hold, as a
   * history event or a record is about as long in either.
   */
  private foldDue(): boolean {
    if (this.torn) return true;
    if (this.journalBytes === 0) return false;
    if (this.snapshotBytes < this.foldMinSnapshotBytes) return true;
    return (
      this.journalBytes * 2 >= this.snapshotBytes ||
      this.journalBytes >= this.compactMinBytes ||
      this.backend.journalNearlyFull?.() === true
    );
  }

  private record(change: JournalChange, durable: boolean): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    applyRecord(this.inventory, change);
    this.pending.push(`${JSON.stringify({ seq: ++this.seq, ...change })}\n`);
    if (!durable) {
      this.schedule();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /** Starts the writer on the next turn, so changes made in the same turn share one write. */
  private schedule(): void {
    if (this.writer || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.writer) void this.run(() => this.drain());
    });
  }

  private run(fn: () => Promise<void>): Promise<void> {
    this.writer = fn()
      .catch((e: unknown) => this.fail(e))
      .finally(() => {
        this.writer = null;
        if (!this.failure && (this.pending.length > 0 || this.waiters.length > 0)) this.schedule();
      });
    return this.writer;
  }

  private async exclusive(fn: () => Promise<void>): Promise<void> {
    while (this.writer) await this.writer;
    await this.run(fn);
    if (this.failure) throw this.failure;
  }

  /** Writes batches until nothing is queued; whatever queues during a write goes in the next one. */
  private async drain(): Promise<void> {
    // Appending after a torn line would glue a good record to a broken one: fold it away first.
    if (this.torn) await this.compact();
    while (this.pending.length > 0 || this.waiters.length > 0) {
      const text = this.pending.join('');
      this.pending = [];
      const waiters = (this.inFlight = this.waiters);
      this.waiters = [];
      const sync = waiters.length > 0;
      await this.backend.append(text, sync, this.journalBytes);
      this.journalBytes += Buffer.byteLength(text);
      this.unsynced = sync ? false : this.unsynced || text.length > 0;
      this.inFlight = [];
      for (const w of waiters) w.resolve();
      if (this.journalBytes > Math.max(this.compactMinBytes, 2 * this.snapshotBytes) || this.backend.journalNearlyFull?.())
        await this.compact();
    }
  }

  /**
   * Snapshot of the in-memory state, then an empty journal. Lines still queued are part of the
   * snapshot; they are appended first all the same, so a remote backend checks its lease before the
   * snapshot replaces anything.
   */
  private async compact(): Promise<void> {
    let snapshotBytes = 0;
    const parts = counted(snapshotParts(this.inventory, this.seq), (n) => (snapshotBytes += n));
    const lines = this.pending.join('');
    this.pending = [];
    const waiters = (this.inFlight = [...this.inFlight, ...this.waiters]);
    this.waiters = [];
    if (lines.length > 0 && !this.torn) {
      await this.backend.append(lines, false, this.journalBytes);
      this.journalBytes += Buffer.byteLength(lines);
    }
    await this.backend.writeSnapshot(parts);
    await this.backend.resetJournal();
    this.snapshotBytes = snapshotBytes;
    this.journalBytes = 0;
    this.torn = false;
    this.unsynced = false;
    this.inFlight = [];
    for (const w of waiters) w.resolve();
  }

  private fail(e: unknown): void {
    const err =
      e instanceof StateError
        ? e
        : new StateError(
            'STATE_WRITE_FAILED',
            `cannot write the ${this.backend.description}: ${e instanceof Error ? e.message : String(e)}`,
            { cause: e },
          );
    this.failure ??= err;
    const waiters = [...this.inFlight, ...this.waiters];
    this.inFlight = [];
    this.waiters = [];
    for (const w of waiters) w.reject(this.failure);
    this.stopper.abort(this.failure);
  }
}

/** The parts as they are taken, telling `add` each one's size in bytes. */
function* counted(parts: Iterable<string>, add: (bytes: number) => void): Generator<string> {
  for (const p of parts) {
    add(Buffer.byteLength(p));
    yield p;
  }
}
