/**
 * The last valid load's result, kept beside the manifest cache (`<cache file>.desired`): when a load
 * reads, name for name and byte for byte, the files of the last valid load (the record
 * `ManifestCache.knownValid` reads), the desired set, its warnings and its counts are read back in
 * one piece instead of being built again from each file's cache entry, the checks and the rules
 * (docs/architecture.md, "The engine"). At 3,750 flows that was most of a warm load's CPU (~0.3–0.5 s
 * in-process, more in a fresh process) against ~60 ms to read this back.
 *
 * It never changes a result: it is written only for a load whose result follows from its files and
 * the loader alone (no Baseline, whose exceptions expire with time; no package content directory,
 * whose bytes are not among the files; values JSON keeps exactly), and read only under the record's
 * key (the files and the root) and the identity of the loader that wrote it, which also names the
 * Node.js version (time zones come from its Intl data). Kept only with a cache file, and only up to
 * `MAX_OBJECTS` objects: the agent's heap is capped (AGENT_NODE_OPTIONS), and the snapshot is
 * written as one string.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DesiredModel, Problem } from './model.js';
import { isDirectory, jsonExact, sha256 } from './parse-cache.js';
import type { Turns } from '../util/turns.js';

/** What a load returns that the snapshot keeps. */
export interface DesiredSnapshot {
  desired: DesiredModel;
  problems: Problem[];
  files: string[];
  documents: number;
}

const FORMAT = 'packsync-desired-snapshot/2';
/** Objects a snapshot holds at most (a 3,750-flow fleet has 19,750; ten times that is left to the full load). */
export const MAX_OBJECTS = 50_000;

/** The desired set's object lists, each written as lines of at most `PART_OBJECTS` objects. */
const LISTS = ['packages', 'flows', 'deployments', 'tenantUploads'] as const;
type ListName = (typeof LISTS)[number];
/**
 * Objects per line. Read back, a line is one `JSON.parse` of ~1–2 ms: between lines the event loop
 * handles the answers of the reads already in flight (a pass starts them before the load returns),
 * where one parse of the whole 6.9 MB body held all 16 of them for ~0.1 s.
 */
const PART_OBJECTS = 500;

/**
 * Whether this valid load's result may be kept: it follows from the files and the loader alone. A
 * valid load's Baselines each have a summary in `desired.baselines`, and every package content
 * directory it read is a Package's `content`, so the result itself says whether it had either.
 */
export function snapshotEligible(s: DesiredSnapshot): boolean {
  const d = s.desired;
  const objects = d.packages.length + d.flows.length + d.deployments.length + d.tenantUploads.length;
  if (d.baselines !== undefined || objects > MAX_OBJECTS) return false;
  // The empty-folder warning names the path as it was typed, which the record's key (the absolute
  // root) does not: `.` and the full path would share a snapshot.
  if (s.problems.some((p) => p.rule === 'manifest.none')) return false;
  // Whether JSON keeps every value exactly is asked of each line as it is made (bodyLines).
  return d.packages.every((p) => p.content === undefined);
}

/**
 * The body: a first line with the snapshot's lists left empty, then one line per part of a list,
 * `[name, objects]`, in order. Joined back, exactly the snapshot; undefined when JSON would not keep
 * a value exactly. Made a line at a time, giving way to the event loop when `turns` says: written
 * after an edit, the 7 MB of a 3,750-flow fleet held the first reads' answers back as long as it
 * took (docs/performance.md, "answers in bursts").
 */
async function bodyLines(s: DesiredSnapshot, turns?: Turns): Promise<string[] | undefined> {
  const d = s.desired;
  const rest = { ...s, desired: { ...d, packages: [], flows: [], deployments: [], tenantUploads: [] } };
  if (!jsonExact(rest)) return undefined;
  const lines = [JSON.stringify(rest)];
  for (const name of LISTS) {
    const list: readonly unknown[] = d[name];
    for (let i = 0; i < list.length; i += PART_OBJECTS) {
      if (turns?.due()) await turns.next();
      const part = list.slice(i, i + PART_OBJECTS);
      if (!jsonExact(part)) return undefined;
      lines.push(JSON.stringify([name, part]));
    }
  }
  return lines;
}

/** Writes the snapshot for `key` (atomically: a temporary file renamed); false when it could not. */
export async function writeSnapshot(file: string, identity: string, key: string, s: DesiredSnapshot, turns?: Turns): Promise<boolean> {
  // Like the manifest cache, never the one to create a state directory (`<stateDir>/cache/<file>`):
  // a `plan` in a fresh checkout leaves no trace.
  if (!(await isDirectory(dirname(dirname(file))))) return false;
  let body: string;
  try {
    const lines = await bodyLines(s, turns);
    if (!lines) return false;
    body = lines.join('\n');
  } catch {
    // Longer than a string may be: the next load is a full one, nothing worse.
    return false;
  }
  const header = JSON.stringify({ format: FORMAT, identity, key, body: sha256(body) });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(tmp, `${header}\n${body}`);
    await rename(tmp, file);
    return true;
  } catch {
    await rm(tmp, { force: true }).catch(() => undefined);
    return false;
  }
}

/**
 * The snapshot of `key` by the loader `identity`, or undefined (absent, another key or loader, torn,
 * edited). Read line by line, giving way to the event loop between lines when `turns` says; the
 * body's digest is checked over the same bytes before anything is returned.
 */
export async function readSnapshot(file: string, identity: string, key: string, turns?: Turns): Promise<DesiredSnapshot | undefined> {
  const bytes = await readFile(file).catch(() => undefined);
  if (!bytes) return undefined;
  const nl = bytes.indexOf(0x0a);
  if (nl < 0) return undefined;
  try {
    const header = JSON.parse(bytes.toString('utf8', 0, nl)) as { format?: unknown; identity?: unknown; key?: unknown; body?: unknown };
    if (header.format !== FORMAT || header.identity !== identity || header.key !== key) return undefined;
    const digest = createHash('sha256');
    let snapshot: DesiredSnapshot | undefined;
    for (let start = nl + 1; start <= bytes.length;) {
      const end = bytes.indexOf(0x0a, start);
      const stop = end < 0 ? bytes.length : end;
      digest.update(bytes.subarray(start, end < 0 ? stop : stop + 1));
      const value = JSON.parse(bytes.toString('utf8', start, stop)) as unknown;
      if (snapshot === undefined) snapshot = value as DesiredSnapshot;
      else addPart(snapshot, value);
      start = stop + 1;
      if (turns?.due()) await turns.next();
    }
    return header.body === digest.digest('hex') ? snapshot : undefined;
  } catch {
    return undefined;
  }
}

/** One `[name, objects]` line appended to its list; anything else is not a snapshot this loader wrote. */
function addPart(s: DesiredSnapshot, part: unknown): void {
  if (!Array.isArray(part) || part.length !== 2 || !LISTS.includes(part[0] as ListName) || !Array.isArray(part[1]))
    throw new Error('not a snapshot part');
  const list = s.desired[part[0] as ListName] as unknown[];
  for (const o of part[1] as unknown[]) list.push(o);
}
