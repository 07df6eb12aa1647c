/**
 * The manifest cache: what loading a file produced (its documents' values, the positions every valid
 * manifest carries, the schema check's verdict), keyed by the sha256 of the file's bytes, so a file
 * whose bytes did not change since the last load is not parsed and validated again. Parsing YAML was
 * most of a no-op pass's CPU at 3,000 flows (docs/performance.md, fleet-10x).
 *
 * It never changes a result: only files that loaded without a problem of their own are kept (a
 * problem is always computed fresh); the cross-document rules always run; an entry is valid only for
 * the same packsync, the same loader code, the same `yaml` and `ajv` and the same schemas (`identity`).
 * Entries of files the last load did not see are dropped, so it holds one repository's files.
 *
 * It lives in memory (the agent's passes) and, for a local state directory, in
 * `<stateDir>/cache/manifests-v1.jsonl` (a fresh `packsync plan`), rewritten atomically when a load
 * changed it, ignored when unreadable, corrupt or of another identity. It is never required. Beside
 * it: `.valid` (the key of the last valid load), `.desired` (its result, desired-snapshot.ts) and
 * `.stat` (its files by their stat, stat-record.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIND_SCHEMAS } from './schemas.js';
import { formatStatRecord, parseStatRecord, unchangedFiles } from './stat-record.js';
import type { StatRecord } from './stat-record.js';

/**
 * One cached file: for each document that the file's manifests were read from (each passed its
 * schema with no problem), its index in the file, the line and column it starts at, those of the
 * paths `prelocated` gives for its value (in that order), and its value. Kind, name and message
 * prefix follow from the value, as the schema check derived them.
 */
export type CachedFile = [index: number, line: number, column: number, located: [line: number, column: number][], value: unknown][];

const FORMAT = 'packsync-manifest-cache';
const NEWLINE = 0x0a;
const SPACE = 0x20;
export const CACHE_FILE = join('cache', 'manifests-v1.jsonl');

export const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** Whether `path` is a directory (false when absent or unreadable): the caches write only into one that exists. */
export function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (st) => st.isDirectory(),
    () => false,
  );
}

export interface IdentityInputs {
  node?: string;
  jsYaml?: string;
  packsync: string;
  yaml: string;
  ajv: string;
  schemas: unknown;
  /** The loader's source files, each as its name and contents. */
  code: string[];
}

export function cacheIdentity(i: IdentityInputs): string {
  return sha256(JSON.stringify(i));
}

let identityMemo: string | undefined;

/**
 * What an entry is valid for: packsync's version, the loader's own code (every file of this folder,
 * so a build that changes how a file loads never reads entries of the one before, version bump or
 * not), the versions of `yaml` and `ajv`, and the schemas.
 */
export function identity(): string {
  identityMemo ??= computeIdentity();
  return identityMemo;
}

function computeIdentity(): string {
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    const require = createRequire(import.meta.url);
    // Literal specifiers: the layer lint follows every require (docs/architecture.md, "Layers").
    const version = (pkg: unknown): string => (pkg as { version: string }).version;
    // The kinds' descriptors (kinds/) decide what a load makes of a document too.
    const code = ['', 'kinds']
      .flatMap((sub) =>
        readdirSync(join(here, sub))
          .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts'))
          .map((f) => (sub ? `${sub}/${f}` : f)),
      )
      .sort()
      .map((f) => `${f} ${readFileSync(join(here, f), 'utf8')}`);
    return cacheIdentity({
      // The loader's time zones come from the runtime's Intl data (window rules), which a Node.js
      // built on the system's ICU can change without a new Node.js version.
      node: `${process.version} icu ${process.versions.icu ?? ''} tz ${process.versions.tz ?? ''}`,
      packsync: packsyncVersion(here),
      yaml: version(require('yaml/package.json')),
      // js-yaml reads the plain-style files (plain-yaml.ts).
      jsYaml: version(require('js-yaml/package.json')),
      ajv: version(require('ajv/package.json')),
      schemas: KIND_SCHEMAS,
      code,
    });
  } catch {
    // Unknown (an unusual install): this process's entries are good for this process only.
    return `unknown-${randomBytes(16).toString('hex')}`;
  }
}

/** The version in packsync's package.json, found upwards from `dir` (src/ and dist/src/ alike). */
function packsyncVersion(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    try {
      const pkg = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'packsync') return pkg.version ?? '';
    } catch {
      // not here
    }
    if (dirname(d) === d) return '';
  }
}

/**
 * True when `JSON.parse(JSON.stringify(v))` gives back exactly `v`: plain objects and arrays,
 * strings, booleans, null, finite numbers other than -0 (`.inf`, `.nan` and `-0` are valid YAML).
 */
export function jsonExact(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonExact(v[i])) return false;
    return true;
  }
  if (typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const k of Object.keys(v)) if (k === '__proto__' || !jsonExact((v as Record<string, unknown>)[k])) return false;
  return true;
}

export class ManifestCache {
  /** sha256 of a file's bytes → its entry, as JSON (parsed anew on each hit: nothing shared is handed out). */
  private entries = new Map<string, string>();
  /** The entries are in memory (always, without a file); with a file, only from `open` to `commit`. */
  private loaded = false;
  /** The file holds exactly `entries` (read from it, or written). */
  private onDisk = false;
  /** Entries a worker made (`prime`), ever: how a test sees that a cold load was parsed on two threads. */
  primed = 0;

  /** The key of the last load that was valid (`filesKey` in load-revision.ts); kept beside the file as `<file>.valid`. */
  private validKey: string | undefined;
  private validRead = false;

  /** The last valid load's files by their stat (stat-record.ts); kept beside the file as `<file>.stat`. */
  private stats: StatRecord | undefined;
  /** Loads that returned without reading a file, their files known by their stat, ever: how a test sees it. */
  knownByStat = 0;
  /** The wall clock (ms) a stat is judged settled against (stat-record.ts); a test sets it. */
  readonly now: () => number;

  /** `file`: where the cache is kept between processes; undefined keeps it in memory only. */
  constructor(
    readonly file?: string,
    o: { now?: () => number } = {},
  ) {
    this.now = o.now ?? Date.now;
  }

  /**
   * Reads the record of the last valid load (a line), once per process. It names the loader that
   * judged it (the cache's identity: packsync, the schemas, the loader code), so a load that another
   * version found valid is not known valid to this one.
   */
  async openValid(): Promise<void> {
    if (!this.validRead && this.file !== undefined) {
      const [by, key] = (await readFile(`${this.file}.valid`, 'latin1').catch(() => '')).trim().split(' ');
      this.validKey = key && by === identity() ? key : undefined;
      if (this.validKey !== undefined) {
        const text = await readFile(`${this.file}.stat`, 'utf8').catch(() => '');
        this.stats = parseStatRecord(text, identity());
      }
    }
    this.validRead = true;
  }

  /**
   * The digests of `sources` recorded by the last valid load, in their order, when each file still
   * has the stat it had then (stat-record.ts); undefined when any differs. No file is read.
   */
  unchangedFiles(sources: readonly { file: string; abs: string }[]): { file: string; sha: string }[] | undefined {
    const r = this.stats;
    if (r === undefined || r.key !== this.validKey) return undefined;
    return unchangedFiles(r, sources);
  }

  /** Records the files of the valid load `key` by their stat, unless that is what is recorded already. */
  async keepStats(r: StatRecord): Promise<void> {
    if (this.stats && sameRecord(this.stats, r)) return;
    this.stats = r;
    if (this.file === undefined || !(await isDirectory(dirname(this.file)))) return;
    const text = formatStatRecord(identity(), r);
    if (text === undefined) return;
    const tmp = `${this.file}.stat.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, text)
      .then(() => rename(tmp, `${this.file}.stat`))
      .catch(() => rm(tmp, { force: true }).catch(() => undefined));
  }

  /** Reads the file, unless the entries are in memory. */
  async open(): Promise<void> {
    await this.openValid();
    if (this.loaded) return;
    this.entries = await this.readFile();
    this.onDisk = this.entries.size > 0;
    this.loaded = true;
  }

  /**
   * Whether the last load that was valid read exactly these files (the same names and bytes, under
   * the same root): what a pass may start before its load ends (docs/architecture.md, "The engine").
   */
  knownValid(key: string): boolean {
    return this.validKey === key;
  }

  /** Where the last valid load's result is kept (manifests/desired-snapshot.ts); none without a file. */
  get snapshotFile(): string | undefined {
    return this.file === undefined ? undefined : `${this.file}.desired`;
  }

  /** Records the key of a load that was valid (the small file is written only when it changes). */
  async markValid(key: string): Promise<void> {
    if (this.validKey === key) return;
    this.validKey = key;
    if (this.file === undefined) return;
    if (!(await isDirectory(dirname(this.file)))) return;
    const tmp = `${this.file}.valid.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, `${identity()} ${key}\n`)
      .then(() => rename(tmp, `${this.file}.valid`))
      .catch(() => rm(tmp, { force: true }).catch(() => undefined));
  }

  get(sha: string): CachedFile | undefined {
    const json = this.entries.get(sha);
    if (json === undefined) return undefined;
    try {
      return JSON.parse(json) as CachedFile;
    } catch {
      return undefined;
    }
  }

  /** Adds an entry made in this process (a worker's parse, parallel-parse.ts): the file no longer holds them all. */
  prime(sha: string, json: string): void {
    this.primed++;
    this.entries.set(sha, json);
    this.onDisk = false;
  }

  /** The JSON an entry is kept as (the same text a hit of it was parsed from, when it was one). */
  json(sha: string): string | undefined {
    return this.entries.get(sha);
  }

  /**
   * Replaces the entries with those of the last load and writes the file when they changed. Once the
   * file holds them, memory lets them go until the next load reads them again (a few megabytes at
   * 3,000 files, against a heap capped at 128 MiB through the converge and plan that follow).
   */
  async commit(next: Map<string, string>): Promise<void> {
    const same = next.size === this.entries.size && [...next].every(([k, v]) => this.entries.get(k) === v);
    this.entries = next;
    if (!same || !this.onDisk) this.onDisk = await this.writeFile();
    if (this.file !== undefined && this.onDisk) {
      this.entries = new Map();
      this.loaded = false;
    }
  }

  /**
   * Read as bytes and decoded entry by entry: at 3,770 files the cache is tens of megabytes, and as
   * one string (hashed, split, its entries slices of it) it was a spike of the no-op's peak RSS and
   * stayed alive as long as any entry did.
   */
  private async readFile(): Promise<Map<string, string>> {
    const entries = new Map<string, string>();
    if (this.file === undefined) return entries;
    const bytes = await readFile(this.file).catch(() => Buffer.alloc(0));
    const nl = bytes.indexOf(NEWLINE);
    if (nl < 0) return entries;
    let header: { format?: unknown; identity?: unknown; body?: unknown };
    try {
      header = JSON.parse(bytes.toString('utf8', 0, nl)) as typeof header;
    } catch {
      return entries;
    }
    const body = bytes.subarray(nl + 1);
    // A torn or edited file is ignored whole (and rewritten by the next load).
    if (header.format !== FORMAT || header.identity !== identity() || header.body !== sha256(body)) return entries;
    for (let at = 0; at < body.length;) {
      const end = body.indexOf(NEWLINE, at);
      const stop = end < 0 ? body.length : end;
      if (stop - at > 65 && body[at + 64] === SPACE)
        entries.set(body.toString('latin1', at, at + 64), body.toString('utf8', at + 65, stop));
      at = stop + 1;
    }
    return entries;
  }

  /** True when the file now holds the entries. */
  private async writeFile(): Promise<boolean> {
    if (this.file === undefined) return false;
    const stateDir = dirname(dirname(this.file));
    // The cache never creates a state directory: a `plan` in a fresh checkout leaves no trace.
    if (!(await isDirectory(stateDir))) return false;
    // Written in pieces, never as one string: at 3,000 flow files the cache is megabytes, and the
    // agent's heap is capped (AGENT_NODE_OPTIONS).
    const body = createHash('sha256');
    for (const [k, v] of this.entries) body.update(`${k} ${v}\n`);
    const header = JSON.stringify({ format: FORMAT, identity: identity(), body: body.digest('hex') });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(dirname(this.file), { recursive: true });
      const fh = await open(tmp, 'w');
      try {
        let piece = `${header}\n`;
        for (const [k, v] of this.entries) {
          piece += `${k} ${v}\n`;
          if (piece.length >= 1 << 16) {
            await fh.write(piece);
            piece = '';
          }
        }
        await fh.write(piece);
      } finally {
        await fh.close();
      }
      await rename(tmp, this.file);
      return true;
    } catch {
      // A cache that cannot be written is only slower next time.
      await rm(tmp, { force: true }).catch(() => undefined);
      return false;
    }
  }
}

/** Whether two records name the same key, files, digests and stats (then the file is not written again). */
function sameRecord(a: StatRecord, b: StatRecord): boolean {
  if (a.key !== b.key || a.files.size !== b.files.size) return false;
  for (const [file, f] of b.files) {
    const g = a.files.get(file);
    if (!g || g.sha !== f.sha || g.stat !== f.stat) return false;
  }
  return true;
}

const caches = new Map<string, ManifestCache>();
const memoryOnly = new ManifestCache();

/**
 * The process's cache for a local state directory (kept in `<stateDir>/cache/`), or the in-memory
 * one when the state is remote (`stateDir` undefined).
 */
export function manifestCacheFor(stateDir: string | undefined): ManifestCache {
  if (stateDir === undefined) return memoryOnly;
  const file = join(stateDir, CACHE_FILE);
  let c = caches.get(file);
  if (!c) caches.set(file, (c = new ManifestCache(file)));
  return c;
}
