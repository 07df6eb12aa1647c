/**
 * What a state store needs from where the state lives (a directory, a blob container). The store
 * keeps the logic (records, group commit, compaction); a backend only moves bytes, so the crash
 * guarantees are the same wherever the state is kept.
 */
export interface StateBackend {
  /** For messages: `state directory /x` or `azblob://container/prefix`. */
  readonly description: string;
  readonly names: { snapshot: string; journal: string };
  /** The snapshot and journal as stored (null when absent). Never creates anything. */
  read(): Promise<{ snapshot: string | null; journal: string | null }>;
  /**
   * Appends whole lines to the journal; durable before it resolves when `sync` (directory: fsync;
   * blob: every acknowledged append block is durable). An empty `text` with `sync` only syncs.
   * `expectedBytes` is the journal's size before the append, as the store knows it.
   */
  append(text: string, sync: boolean, expectedBytes: number): Promise<void>;
  /** Replaces the snapshot atomically and durably with the parts' text, in order (journal.ts `snapshotParts`). */
  writeSnapshot(parts: Iterable<string>): Promise<void>;
  /** Empties the journal (called only after a snapshot that includes every record in it). */
  resetJournal(): Promise<void>;
  /** Releases open handles; the backend can be written again afterwards. */
  close(): Promise<void>;
  /**
   * Whether the journal is near a limit of where it is stored, so the next close must fold it
   * whatever its size (an append blob takes at most 50,000 blocks). Absent: no such limit.
   */
  journalNearlyFull?(): boolean;
  /** Counters for tests and benchmarks. */
  readonly stats: BackendStats;
}

export interface BackendStats {
  appends: number;
  syncs: number;
  snapshots: number;
  bytesAppended: number;
}

export function newStats(): BackendStats {
  return { appends: 0, syncs: 0, snapshots: 0, bytesAppended: 0 };
}
