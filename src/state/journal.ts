/**
 * The state's on-store format, shared by every backend: a snapshot (`inventory.json`, the version 1
 * inventory plus `seq`, the last journal record it includes) and a journal (`journal.jsonl`), one
 * JSON record per line, each a last-writer-wins assignment to one key. Replaying a record twice
 * changes nothing, so a crash between writing a snapshot and emptying the journal is harmless:
 * records at or below the snapshot's `seq` are skipped anyway.
 */
import { INVENTORY_VERSION, emptyInventory } from './inventory-types.js';
import type { Intent, Inventory, InventoryEntry } from './inventory-types.js';
import { InventoryError } from './state-errors.js';
import { applyHistory, emptyHistory, parseHistory } from './history.js';
import type { HistoryEvent } from './history.js';

export type JournalRecord =
  | { seq: number; op: 'object'; key: string; entry: InventoryEntry; resolvesIntent?: true }
  | { seq: number; op: 'remove'; key: string }
  | { seq: number; op: 'intent'; intent: Intent }
  | { seq: number; op: 'clear-intent'; key: string }
  /** One history event (state/history.ts): appended, never a key assignment; replay is guarded by `seq`. */
  | { seq: number; op: 'history'; event: HistoryEvent };

/** Distributes over the union so each variant keeps its own fields. */
export type JournalChange = JournalRecord extends infer R ? (R extends { seq: number } ? Omit<R, 'seq'> : never) : never;

export function applyRecord(inv: Inventory, r: JournalChange): void {
  switch (r.op) {
    case 'object':
      inv.objects[r.key] = r.entry;
      if (r.resolvesIntent) delete inv.intents[r.key];
      return;
    case 'remove':
      delete inv.objects[r.key];
      delete inv.intents[r.key];
      return;
    case 'intent':
      inv.intents[r.intent.key] = r.intent;
      return;
    case 'clear-intent':
      delete inv.intents[r.key];
      return;
    case 'history':
      applyHistory((inv.history ??= emptyHistory()), r.event);
      return;
  }
}

export interface LoadedState {
  inventory: Inventory;
  /** Highest record number seen (snapshot or journal): the next record gets seq + 1. */
  seq: number;
  /** Bytes of the journal as stored, and whether its last line was torn (a write cut short). */
  journalBytes: number;
  torn: boolean;
  /** Snapshot bytes, to size the next compaction. */
  snapshotBytes: number;
}

/** Parses a snapshot (or a version 1 `inventory.json` written before the journal: `seq` 0). */
export function parseSnapshot(text: string | null, name: string): { inventory: Inventory; seq: number } {
  if (text === null) return { inventory: emptyInventory(), seq: 0 };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InventoryError(
      `${name} is not valid JSON (${(e as Error).message}); restore it from a backup or move it away to start over`,
      { cause: e },
    );
  }
  const inv = (typeof data === 'object' && data !== null ? data : {}) as Partial<Inventory> & { seq?: unknown };
  if (inv.version !== INVENTORY_VERSION || typeof inv.objects !== 'object' || inv.objects === null) {
    throw new InventoryError(
      `${name} has an unknown format (version ${String(inv.version)}; this packsync reads version ${INVENTORY_VERSION}); restore it from a backup or move it away to start over`,
    );
  }
  const bad = malformed(inv.objects, inv.intents);
  if (bad !== undefined)
    throw new InventoryError(`${name} has an unknown format (${bad}); restore it from a backup or move it away to start over`);
  const history = (data as { history?: unknown }).history;
  return {
    inventory: {
      version: INVENTORY_VERSION,
      objects: inv.objects,
      intents: inv.intents ?? {},
      ...(history !== undefined ? { history: parseHistory(history) } : {}),
    },
    seq: typeof inv.seq === 'number' ? inv.seq : 0,
  };
}

/**
 * The first entry or intent that is not shaped as packsync writes it (a hand edit, another tool):
 * refused as unreadable here, not met later as a JavaScript error in whatever reads it first.
 */
const ENTRY_STRINGS = ['kind', 'name', 'id', 'specHash'] as const;

function malformed(objects: object, intents: unknown): string | undefined {
  // Keys and fields read one by one, not Object.entries: no pair array per entry over a large
  // state before the first call (~50 ms cold at 20,000 entries, docs/performance.md).
  const all = objects as Record<string, unknown>;
  for (const key in all) {
    const x = all[key] as Partial<Record<(typeof ENTRY_STRINGS)[number], unknown>> | null;
    if (typeof x !== 'object' || x === null || Array.isArray(x)) return `objects["${key}"] is not an object`;
    if (typeof x.kind !== 'string' || typeof x.name !== 'string' || typeof x.id !== 'string' || typeof x.specHash !== 'string')
      return `objects["${key}"].${ENTRY_STRINGS.find((f) => typeof x[f] !== 'string')!} is not a string`;
  }
  if (intents === undefined) return undefined;
  if (typeof intents !== 'object' || intents === null || Array.isArray(intents)) return 'intents is not an object';
  for (const [key, i] of Object.entries(intents)) {
    const x = i as Partial<Record<'key' | 'op' | 'knownIds' | 'match', unknown>> | null;
    if (typeof x !== 'object' || x === null || typeof x.key !== 'string' || typeof x.op !== 'string')
      return `intents["${key}"] is not an intent`;
    if (!Array.isArray(x.knownIds) || typeof x.match !== 'object' || x.match === null) return `intents["${key}"] is not an intent`;
  }
  return undefined;
}

/**
 * Replays the journal over the snapshot. A last line that does not parse (or has no newline) is a
 * write cut short by a crash and is ignored: the change it held was never acknowledged. A bad line
 * before a good one is corruption, and is refused rather than silently skipped.
 */
export function loadState(snapshot: string | null, journal: string | null, names: { snapshot: string; journal: string }): LoadedState {
  const { inventory, seq: snapSeq } = parseSnapshot(snapshot, names.snapshot);
  let seq = snapSeq;
  let torn = false;
  const text = journal ?? '';
  const lines = text.split('\n');
  // After the final newline split() leaves '' (or the torn remainder).
  const last = lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' && i === last) break;
    let r: JournalRecord;
    try {
      if (i === last) throw new Error('no newline');
      r = JSON.parse(line) as JournalRecord;
      if (typeof r.seq !== 'number' || typeof r.op !== 'string') throw new Error('not a journal record');
    } catch (e) {
      const rest = lines.slice(i + 1).join('\n');
      if (rest.replace(/[\s\0]/g, '') === '') {
        torn = true;
        break;
      }
      throw new InventoryError(
        `${names.journal} line ${i + 1} is corrupt (${(e as Error).message}); restore the state from a backup or move it away to start over`,
        { cause: e },
      );
    }
    if (r.seq <= snapSeq) continue;
    applyRecord(inventory, r);
    seq = Math.max(seq, r.seq);
  }
  return {
    inventory,
    seq,
    journalBytes: Buffer.byteLength(text),
    torn,
    snapshotBytes: snapshot === null ? 0 : Buffer.byteLength(snapshot),
  };
}

/**
 * Characters per part of a snapshot written in parts. Small enough that a part (even as two-byte
 * text) is an ordinary young object: parts of 1 MiB went to V8's large-object space, which only a
 * full collection frees, and grew the heap by the snapshot's size all the same.
 */
const SNAPSHOT_PART_CHARS = 1 << 15;

/**
 * Compact JSON: the snapshot is rewritten whole at every compaction, so its size is the cost.
 *
 * The snapshot's text in parts of about `partChars` characters, made one at a time as they are
 * written: joined, exactly `JSON.stringify` of the whole state plus a newline. At fleet scale the
 * snapshot is ~12 MB; encoded as one string (and that string as one buffer) at the end of an apply,
 * it made the apply's peak RSS (docs/performance.md "patch-tuesday").
 */
export function snapshotParts(inv: Inventory, seq: number, partChars = SNAPSHOT_PART_CHARS): Iterable<string> {
  // Taken now, so the parts are this moment's state however long their writing takes: records
  // assign whole entries (applyRecord), and the intents and history are encoded here.
  const head = JSON.stringify({ version: inv.version, seq }).slice(0, -1);
  const tail = JSON.stringify({ intents: inv.intents, ...(inv.history ? { history: inv.history } : {}) }).slice(1);
  return objectParts(
    `${head}${head.length > 1 ? ',' : ''}"objects":{`,
    Object.entries(inv.objects),
    `}${tail === '}' ? '' : ','}${tail}\n`,
    partChars,
  );
}

function* objectParts(open: string, entries: [string, unknown][], close: string, partChars: number): Generator<string> {
  let part = open;
  let first = true;
  for (const [key, entry] of entries) {
    // JSON.stringify leaves out a property whose value it cannot write; so does this.
    const value = JSON.stringify(entry) as string | undefined;
    if (value === undefined) continue;
    part += `${first ? '' : ','}${JSON.stringify(key)}:${value}`;
    first = false;
    if (part.length >= partChars) {
      yield part;
      part = '';
    }
  }
  yield `${part}${close}`;
}
