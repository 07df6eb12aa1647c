/**
 * The state in a directory: `inventory.json` (snapshot, replaced atomically: temp file, fsync,
 * rename, directory fsync) and `journal.jsonl` (appended; fdatasync when a record must be durable).
 * Nothing is created until the first write, so `plan` against a new directory leaves no trace.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackendStats, StateBackend } from './backend.js';
import { newStats } from './backend.js';
import { InventoryError } from './state-errors.js';
import { syncDir, writeAtomic } from './durable-file.js';

export const SNAPSHOT_FILE = 'inventory.json';
export const JOURNAL_FILE = 'journal.jsonl';

export class DirectoryBackend implements StateBackend {
  readonly description: string;
  readonly names: { snapshot: string; journal: string };
  readonly stats: BackendStats = newStats();
  private fh: FileHandle | null = null;

  constructor(readonly dir: string) {
    this.description = `state directory ${dir}`;
    this.names = { snapshot: join(dir, SNAPSHOT_FILE), journal: join(dir, JOURNAL_FILE) };
  }

  /**
   * Journal first, then snapshot: a compaction that runs meanwhile (snapshot, then empty journal)
   * can then only make us read a newer snapshot with records it already holds, never an older
   * snapshot without the records that were folded into the newer one.
   */
  async read(): Promise<{ snapshot: string | null; journal: string | null }> {
    const journal = await readIfExists(this.names.journal);
    return { snapshot: await readIfExists(this.names.snapshot), journal };
  }

  /** Set by the lock's holder: throws when the lease is lost, so no write follows a takeover (dir-lock.ts). */
  fence: ((deep: boolean) => Promise<void>) | null = null;

  async append(text: string, sync: boolean, expectedBytes: number): Promise<void> {
    // A durable append is an intent before a create: the lock is re-read so a lost lease never creates twice.
    await this.fence?.(sync);
    const fh = await this.handle();
    if (text.length > 0) {
      await writeWhole(fh, Buffer.from(text, 'utf8'), expectedBytes);
      this.stats.appends++;
      this.stats.bytesAppended += Buffer.byteLength(text);
    }
    if (sync) {
      await fh.datasync();
      this.stats.syncs++;
    }
  }

  async writeSnapshot(parts: Iterable<string>): Promise<void> {
    await this.fence?.(false);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Written part by part: never the whole snapshot as one string and one buffer.
    await writeAtomic(this.names.snapshot, parts);
    this.stats.snapshots++;
  }

  async resetJournal(): Promise<void> {
    const fh = await this.handle();
    await fh.truncate(0);
    await fh.datasync();
    this.stats.syncs++;
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }

  private async handle(): Promise<FileHandle> {
    if (this.fh) return this.fh;
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const existed = (await readIfExists(this.names.journal)) !== null;
    // 'a': every write lands at the end, also after a truncate.
    this.fh = await open(this.names.journal, 'a', 0o600);
    // A new file's name must be durable too, or a power cut could lose the whole journal.
    if (!existed) await syncDir(this.dir);
    return this.fh;
  }
}

/**
 * Writes all of `buf` at the journal's end, or throws with the journal cut back to `before` bytes.
 * A write may take only part of a buffer (a disk that fills up): taken for whole, the record was
 * torn but counted as saved, and the create its intent guards went out with no readable record
 * (regression: `--adopt` needed after a full disk). Nothing is acknowledged until every byte is written.
 */
async function writeWhole(fh: FileHandle, buf: Buffer, before: number): Promise<void> {
  let done = 0;
  try {
    while (done < buf.length) {
      const { bytesWritten } = await fh.write(buf, done, buf.length - done);
      if (bytesWritten <= 0) throw Object.assign(new Error('no space left on the device (a write took 0 bytes)'), { code: 'ENOSPC' });
      done += bytesWritten;
    }
  } catch (e) {
    // Best effort: a torn tail would glue the next record to a broken one (the store also folds a torn journal on load).
    await fh.truncate(before).catch(() => undefined);
    throw e;
  }
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    // Read whole, then decoded once: `readFile(file, 'utf8')` decodes a large snapshot chunk by chunk
    // into a rope that JSON.parse must flatten (~30 ms of a 3,750-flow no-op's start, docs/performance.md).
    return (await readFile(file)).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InventoryError(`cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
}
