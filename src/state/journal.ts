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
import { isRecord } from '../util/records.js';

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
  if (inv.version !== INVENTORY_VERSION) {
    throw new InventoryError(
      `${name} has an unknown format (version ${String(inv.version)}; this packsync reads version ${INVENTORY_VERSION}); restore it from a backup or move it away to start over`,
    );
  }
  // The right version with no objects map is a damaged file, not a format from another packsync: say what is wrong.
  const unknown = (bad: string): InventoryError =>
    new InventoryError(`${name} has an unknown format (${bad}); restore it from a backup or move it away to start over`);
  if (typeof inv.objects !== 'object' || inv.objects === null || Array.isArray(inv.objects)) throw unknown('objects is not an object');
  const bad = malformed(inv.objects, inv.intents);
  if (bad !== undefined) throw unknown(bad);
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
    const bad = malformedEntry(all[key]);
    if (bad !== undefined) return `objects["${key}"]${bad}`;
  }
  if (intents === undefined) return undefined;
  if (typeof intents !== 'object' || intents === null || Array.isArray(intents)) return 'intents is not an object';
  for (const [key, i] of Object.entries(intents)) if (notIntent(i)) return `intents["${key}"] is not an intent`;
  return undefined;
}

/** What is wrong with an inventory entry (` is not an object`, `.id is not a string`), or undefined. */
function malformedEntry(entry: unknown): string | undefined {
  const x = entry as Partial<Record<(typeof ENTRY_STRINGS)[number], unknown>> | null;
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return ' is not an object';
  if (typeof x.kind !== 'string' || typeof x.name !== 'string' || typeof x.id !== 'string' || typeof x.specHash !== 'string')
    return `.${ENTRY_STRINGS.find((f) => typeof x[f] !== 'string')!} is not a string`;
  return undefined;
}

function notIntent(intent: unknown): boolean {
  const x = intent as Partial<Record<'key' | 'op' | 'knownIds' | 'match', unknown>> | null;
  if (typeof x !== 'object' || x === null || typeof x.key !== 'string' || typeof x.op !== 'string') return true;
  return !Array.isArray(x.knownIds) || typeof x.match !== 'object' || x.match === null;
}

/**
 * What is wrong with a journal record that parsed as JSON (a hand edit, another tool, a packsync
 * newer than this one), or undefined: the same checks as the snapshot's, so a bad record is
 * INVENTORY_UNREADABLE at its line, not a JavaScript error where it is first read, and an unknown
 * op is refused rather than silently dropped.
 */
function malformedRecord(r: unknown): string | undefined {
  if (!isRecord(r) || typeof r.seq !== 'number' || typeof r.op !== 'string') return 'not a journal record';
  switch (r.op) {
    case 'object': {
      if (typeof r.key !== 'string') return 'key is not a string';
      const bad = malformedEntry(r.entry);
      return bad === undefined ? undefined : `entry${bad}`;
    }
    case 'remove':
    case 'clear-intent':
      return typeof r.key === 'string' ? undefined : 'key is not a string';
    case 'intent':
      return notIntent(r.intent) ? 'intent is not an intent' : undefined;
    case 'history':
      return malformedEvent(r.event);
    default:
      return `unknown op ${JSON.stringify(r.op)}`;
  }
}

/** The least each history event needs for applyHistory to apply it (history.ts); anything more is read leniently there. */
const EVENT_SHAPES: Record<string, (x: Record<string, unknown>) => boolean> = {
  rollout: (x) => isRecord(x.rollout) && typeof x.rollout.deploymentId === 'string',
  horizon: (x) => typeof x.at === 'string',
  drift: (x) => isRecord(x.record) && typeof x.record.key === 'string',
  wave: (x) => typeof x.deploymentId === 'string' && typeof x.wave === 'number',
  complete: (x) => typeof x.deploymentId === 'string',
  stop: (x) => typeof x.deploymentId === 'string',
  gate: (x) => typeof x.deploymentId === 'string' && isRecord(x.entry),
  counts: (x) => typeof x.deploymentId === 'string' && isRecord(x.tenants),
};

function malformedEvent(e: unknown): string | undefined {
  if (!isRecord(e) || typeof e.type !== 'string') return 'event is not a history event';
  const check = Object.hasOwn(EVENT_SHAPES, e.type) ? EVENT_SHAPES[e.type] : undefined;
  if (!check) return `unknown history event ${JSON.stringify(e.type)}`;
  return check(e) ? undefined : `history event "${e.type}" is not shaped as packsync writes it`;
}

/**
 * Replays the journal over the snapshot. A last line that does not parse (or has no newline) is a
 * write cut short by a crash and is ignored: the change it held was never acknowledged. A bad line
 * before a good one is corruption, and is refused rather than silently skipped; so is a whole line
 * (JSON, newline) that is not a record this packsync writes, wherever it is.
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
    let parsed: unknown;
    try {
      if (i === last) throw new Error('no newline');
      parsed = JSON.parse(line);
    } catch (e) {
      const rest = lines.slice(i + 1).join('\n');
      if (rest.replace(/[\s\0]/g, '') === '') {
        torn = true;
        break;
      }
      throw corruptLine(names.journal, i, (e as Error).message, e);
    }
    // A line that parsed, newline and all, was written whole: a bad shape is an edit, never a torn
    // write, so it is refused even as the last line (not dropped as a crash's leftover).
    const bad = malformedRecord(parsed);
    if (bad !== undefined) throw corruptLine(names.journal, i, bad);
    const r = parsed as JournalRecord;
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

function corruptLine(journal: string, index: number, what: string, cause?: unknown): InventoryError {
  return new InventoryError(
    `${journal} line ${index + 1} is corrupt (${what}); restore the state from a backup or move it away to start over`,
    cause === undefined ? undefined : { cause },
  );
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
