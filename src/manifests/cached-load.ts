/**
 * One load's use of the manifest cache (parse-cache.ts): a file is parsed, or taken from the cache
 * when its bytes are known; its documents are checked, or their checks taken from the cache; at the
 * end, the cache is replaced by the entries of this load's files that may be cached.
 */
import { checkDocument, manifestPrefix } from './check-document.js';
import type { CheckResult } from './check-document.js';
import { documentHandle, recomposer } from './document-handle.js';
import { isObjectKind } from './kinds/index.js';
import type { SourceKind } from './model.js';
import type { CachedFile, ManifestCache } from './parse-cache.js';
import { identity, jsonExact, sha256 } from './parse-cache.js';
import { readSnapshot, snapshotEligible, writeSnapshot } from './desired-snapshot.js';
import type { DesiredSnapshot } from './desired-snapshot.js';
import type { Turns } from '../util/turns.js';
import { prelocated } from './positions.js';
import type { ParsedFile } from './yaml-source.js';
import type { Located, ParsedDocument, Position, PrelocatedPath } from './yaml-types.js';
import { parseYamlFile } from './yaml-source.js';
import { PARALLEL_MIN_FILES, parseInWorker } from './parallel-parse.js';
import { looksPlain } from './plain-yaml.js';

export class CachedLoad {
  /** Per file: the sha256 of its bytes (with a cache), and its checks (in document order). */
  private readonly shaOf = new Map<ParsedFile, string>();
  private readonly checksOf = new Map<ParsedFile, CheckResult[]>();
  private readonly hits = new Set<ParsedFile>();

  constructor(private readonly cache: ManifestCache | undefined) {}

  open(): Promise<void> {
    return this.cache?.open() ?? Promise.resolve();
  }

  /** Only the record of the last valid load (knownValid), before the entries are read. */
  openValid(): Promise<void> {
    return this.cache?.openValid() ?? Promise.resolve();
  }

  /**
   * Parses every file in order, as `parse` would; when many are neither in the cache nor in the
   * plain style, two in five of those are parsed by a worker thread meanwhile (parallel-parse.ts)
   * and then read as cache hits.
   */
  async parseAll(files: readonly { file: string; sha?: string; text: string }[], turns?: Turns): Promise<ParsedFile[]> {
    const cache = this.cache;
    if (!cache) return this.parseInTurns(files, new Array<ParsedFile | undefined>(files.length), turns);
    const uncached = files.flatMap((f, i) => (f.sha === undefined || cache.json(f.sha) === undefined ? [i] : []));
    // Files in the plain style are read here faster than a worker starts (plain-yaml.ts): the worker
    // shares only the rest. The line scan that tells them apart is made only when enough files are
    // new for a worker to be worth it (it is made again when each is parsed).
    const cold = uncached.length >= PARALLEL_MIN_FILES ? uncached.filter((i) => !looksPlain(files[i]!.text)) : [];
    const out = new Array<ParsedFile | undefined>(files.length);
    if (cold.length >= PARALLEL_MIN_FILES) {
      // Two files in five to the worker: it starts ~0.3 s late (a thread, its modules), and this
      // thread's half was done that much sooner when they split evenly.
      const toWorker = (k: number): boolean => k % 5 === 1 || k % 5 === 3;
      const theirs = cold.filter((_, k) => toWorker(k));
      const pending = parseInWorker(theirs.map((i) => ({ file: files[i]!.file, text: files[i]!.text })));
      for (const i of cold.filter((_, k) => !toWorker(k))) out[i] = this.parse(files[i]!.file, files[i]!.text, files[i]!.sha);
      const entries = await pending;
      theirs.forEach((i, k) => {
        const json = entries?.[k];
        const sha = files[i]!.sha;
        if (json && sha !== undefined) cache.prime(sha, json);
      });
    }
    return this.parseInTurns(files, out, turns);
  }

  /** Each file not parsed yet, in order, giving way to the event loop between them when `turns` says. */
  private async parseInTurns(
    files: readonly { file: string; sha?: string; text: string }[],
    out: (ParsedFile | undefined)[],
    turns: Turns | undefined,
  ): Promise<ParsedFile[]> {
    const all: ParsedFile[] = [];
    for (const [i, f] of files.entries()) {
      if (turns?.due()) await turns.next();
      all.push(out[i] ?? this.parse(f.file, f.text, f.sha));
    }
    return all;
  }

  /** What a file is known by in the cache (the sha256 of its bytes), when there is one or `always`; else `{}`. */
  digestOf(bytes: Uint8Array, always = false): { sha?: string } {
    return this.cache || always ? { sha: sha256(bytes) } : {};
  }

  /** One file, from the cache when `sha` is known there, else parsed (and kept for the cache under `sha`). */
  parse(file: string, text: string, sha: string | undefined): ParsedFile {
    if (!this.cache || sha === undefined) return parseYamlFile(file, text, { prelocate: prelocated });
    const hit = this.cache.get(sha);
    const f = (hit && fromCacheEntry(file, text, hit)) || { parsed: parseYamlFile(file, text, { prelocate: prelocated }), checks: [] };
    this.shaOf.set(f.parsed, sha);
    this.checksOf.set(f.parsed, f.checks);
    if (f.checks.length > 0) this.hits.add(f.parsed);
    return f.parsed;
  }

  /** The check of the `index`th document of `f` (documents are checked in order, once). */
  check(f: ParsedFile, index: number, d: ParsedDocument): CheckResult {
    if (this.hits.has(f)) return this.checksOf.get(f)![index]!;
    const checked = checkDocument(d);
    this.checksOf.get(f)?.push(checked);
    return checked;
  }

  /** Whether the last valid load read exactly the files of `key` (ManifestCache.knownValid); never without a cache. */
  knownValid(key: string): boolean {
    return this.cache?.knownValid(key) ?? false;
  }

  /** The last valid load's digests of `sources` when none of them changed since, by their stat (stat-record.ts). */
  unchangedFiles(sources: readonly { file: string; abs: string }[]): { file: string; sha: string }[] | undefined {
    return this.cache?.unchangedFiles(sources);
  }

  /** Counts a load that returned without reading its files (`ManifestCache.knownByStat`). */
  returnedByStat(): void {
    if (this.cache) this.cache.knownByStat++;
  }

  /** Records the files of the valid load `key` (their digests, and the stats read with their bytes). */
  keepStats(key: string, files: readonly { file: string; sha?: string; stat?: string | null }[]): Promise<void> {
    if (!this.cache) return Promise.resolve();
    const record = new Map<string, { sha: string; stat: string | null }>();
    for (const f of files) {
      if (f.sha === undefined) return Promise.resolve();
      record.set(f.file, { sha: f.sha, stat: f.stat ?? null });
    }
    return this.cache.keepStats({ key, files: record });
  }

  /** The wall clock a file's stat is judged settled against (stat-record.ts). */
  now(): number {
    return this.cache?.now() ?? Date.now();
  }

  /** Records that the load of `key` was valid. */
  markValid(key: string): Promise<void> {
    return this.cache?.markValid(key) ?? Promise.resolve();
  }

  /** The result the last valid load of `key` kept (desired-snapshot.ts), or undefined. */
  async snapshot(key: string, turns?: Turns): Promise<DesiredSnapshot | undefined> {
    const file = this.cache?.snapshotFile;
    return file === undefined ? undefined : readSnapshot(file, identity(), key, turns);
  }

  /** Keeps a valid load's result for the next load of the same files, when it follows from them alone. */
  async keepSnapshot(key: string, s: DesiredSnapshot, turns?: Turns): Promise<void> {
    const file = this.cache?.snapshotFile;
    if (file !== undefined && snapshotEligible(s)) await writeSnapshot(file, identity(), key, s, turns);
  }

  /** Keeps the entries of `files` (the load's files, after content files were set aside), and only those. */
  async commit(files: readonly ParsedFile[]): Promise<void> {
    const cache = this.cache;
    if (!cache) return;
    const next = new Map<string, string>();
    for (const f of files) {
      const sha = this.shaOf.get(f);
      if (sha === undefined) continue;
      const json = this.hits.has(f) ? cache.json(sha) : cacheEntry(f, this.checksOf.get(f) ?? []);
      if (json !== undefined) next.set(sha, json);
    }
    await cache.commit(next);
  }
}

/**
 * The entry of a file, as JSON; undefined when it must not be cached: it had a problem of its own
 * (YAML, schema, a foreign document: problems are always computed fresh), or a value JSON would
 * not give back exactly.
 */
export function cacheEntry(f: ParsedFile, checks: readonly CheckResult[]): string | undefined {
  if (f.problems.length > 0 || f.broken.length > 0 || checks.length !== f.documents.length) return undefined;
  const entry: CachedFile = [];
  for (let i = 0; i < f.documents.length; i++) {
    const d = f.documents[i]!;
    const { record, authored, problems, foreign } = checks[i]!;
    if (!d.ok || !(record?.valid || authored?.valid) || problems.length > 0 || foreign || !jsonExact(d.value)) return undefined;
    const located: [number, number][] = [];
    for (const { key } of prelocated(d.value)) {
      const p = d.located.get(key);
      if (!p) return undefined;
      located.push([p.line, p.column]);
    }
    entry.push([d.index, d.start.line, d.start.column, located, d.value]);
  }
  return JSON.stringify(entry);
}

/**
 * What parsing and checking the file would give: its documents (a position beyond the cached ones
 * composes `text` on demand) and their checks, as `checkDocument` gives them for a valid manifest.
 */
export function fromCacheEntry(file: string, text: string, entry: CachedFile): { parsed: ParsedFile; checks: CheckResult[] } | undefined {
  // An entry not of the shape written (which digest and identity should rule out) is a miss, never a failed load.
  if (!Array.isArray(entry) || entry.length === 0) return undefined;
  const paths: PrelocatedPath[][] = [];
  for (const d of entry) {
    if (!Array.isArray(d) || !Array.isArray(d[3])) return undefined;
    const each = prelocated(d[4]);
    if (d[3].length !== each.length) return undefined;
    paths.push(each);
  }
  const again = recomposer(text);
  const checks: CheckResult[] = [];
  const documents = entry.map(([index, line, column, positions, value], k) => {
    const located = new CachedPositions(paths[k]!, positions);
    const doc = documentHandle(file, text, again, { index, value, start: { line, column }, ok: true, located });
    const data = value as { kind: SourceKind; metadata?: { name?: unknown } };
    const name = typeof data.metadata?.name === 'string' ? data.metadata.name : undefined;
    const checked = { doc, name, data: value as Record<string, unknown>, valid: true, prefix: manifestPrefix(data.kind, name) };
    // A Baseline's valid document is cached too; it is expanded again on every load.
    checks.push(
      isObjectKind(data.kind)
        ? { record: { ...checked, kind: data.kind }, problems: [] }
        : { authored: { ...checked, kind: data.kind }, problems: [] },
    );
    return doc;
  });
  return { parsed: { file, documents, problems: [], broken: [] }, checks };
}

/**
 * A cached document's located positions, as the entry holds them, made into a position when asked:
 * a Map and a position object per live field for each of a warm load's ~20,000 documents were
 * ~20 MiB of its allocations (docs/performance.md, fleet-cli).
 */
class CachedPositions implements Located {
  constructor(
    private readonly paths: readonly PrelocatedPath[],
    private readonly positions: readonly (readonly [number, number])[],
  ) {}

  get(key: string): Position | undefined {
    for (let i = 0; i < this.paths.length; i++) {
      if (this.paths[i]!.key !== key) continue;
      const p = this.positions[i]!;
      return { line: p[0], column: p[1] };
    }
    return undefined;
  }
}
