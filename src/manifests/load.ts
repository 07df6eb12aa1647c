/**
 * Load a manifest repository: find the YAML files, parse them with positions, validate every
 * document against its kind's JSON Schema, then apply the cross-document rules. Every problem is
 * returned at once; `desired` is set only when there is no error (a revision is valid whole or not
 * at all).
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import type { BigIntStats, Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { isInside } from '../api/content-files.js';
import { API_VERSION } from './model.js';
import type { DeploymentManifest, DesiredModel, FlowManifest, Kind, PackageManifest, Problem, TenantUploadManifest } from './model.js';
import { CachedLoad } from './cached-load.js';
import { checkDocument } from './check-document.js';
import { expandAuthored } from './expand.js';
import type { AuthoredRecord } from './expand.js';
import { compare, sortProblems } from './sort-problems.js';
import { checkRules } from './rules.js';
import type { DocRecord } from './doc-record.js';
import { decodeManifest } from './encoding.js';
import { fieldPositions } from './positions.js';
import { commonParent, markedRoot, repositoryRoot } from './repository-root.js';
import { listManifestFiles, listYamlFiles, walkSkips } from './walk.js';
import type { SkippedLink } from './walk.js';
import type { ManifestCache } from './parse-cache.js';
import type { ParsedFile } from './yaml-source.js';
import type { ContentInfo } from './content.js';
import type { GeneratedDocument } from './generated-document.js';
import { filesKey, loadRevision } from './load-revision.js';
import { Turns } from '../util/turns.js';
import { racyWindow, settled, statKey } from './stat-record.js';

export interface LoadOptions {
  /** Larger files are reported (`file.too-large`) instead of parsed. Default 10 MiB. */
  maxFileBytes?: number;
  /** Follow symlinked files and folders while looking for manifests. Default false. */
  followSymlinks?: boolean;
  /** Reuse what unchanged files loaded to before (parse-cache.ts); none by default. */
  cache?: ManifestCache;
  /** The time a Baseline's exceptions expire against (default: this machine's clock). */
  now?: Date;
  /** Return the documents Baselines generated (`LoadResult.generated`, for `packsync render`). */
  keepGenerated?: boolean;
  /** Return `revision`: a directory source's revision, a digest of what was loaded (load-revision.ts). */
  revision?: boolean;
  /**
   * Called (`'record'`), before the load goes on, when the files read are name for name and byte for
   * byte those of the last load of this path that was valid (the parse cache's record; never without
   * a cache): a pass starts the reads its state names then (docs/architecture.md, "The engine").
   * Called (`'checks'`, also after a `'record'` call) once the load's checks found no error, before
   * it builds the desired set. An invalid repository is never said valid, so it makes no call.
   */
  onKnownValid?: (by: 'record' | 'checks') => void;
}

export interface LoadResult {
  desired: DesiredModel | null;
  problems: Problem[];
  /** Manifest files read, relative to the root (or as given for a single file). */
  files: string[];
  /** Non-empty YAML documents read. */
  documents: number;
  /** The documents Baselines generated, with where each field came from (`packsync render`). */
  generated?: GeneratedDocument[];
  /** With `revision` asked and `desired` set: the digest of what was loaded (load-revision.ts). */
  revision?: string;
}

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

function at(file: string, rule: string, message: string, severity: Problem['severity'] = 'error'): Problem {
  return { file, line: 1, column: 1, pointer: '', rule, message, severity };
}

/** `path` is a directory (every *.yaml / *.yml below it) or a single YAML file. */
export async function loadManifests(path: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const abs = resolve(path);
  const st = await stat(abs).catch(() => undefined);
  if (!st) return { desired: null, problems: [at(path, 'file.not-found', `${path} does not exist`)], files: [], documents: 0 };
  const single = !st.isDirectory();
  const root = single ? dirname(abs) : abs;
  // `content:` paths resolve from the repository root, as `validate` resolves them (docs/manifests.md
  // "Files"), while `path` alone bounds the desired set: plan, apply and run --path agree with validate.
  const repo = await repositoryRoot(root);
  const walked = single
    ? { files: [path], links: [] }
    : await listManifestFiles(root, { followSymlinks: opts.followSymlinks ?? false, boundary: repo });
  const sources = walked.files.map((rel) => ({ file: rel, abs: single ? abs : resolve(root, rel), reported: true }));
  const how = single ? { contentFilter: false, contentRoot: repo } : { contentFilter: true, none: path, contentRoot: repo };
  const loaded = await loadSources(root, sources, opts, { ...how, linksRefused: walked.links.length > 0 });
  return withLinkProblems(loaded, walked.links);
}

/** Symlinks the walk refused are errors of the revision (docs/manifests.md "Files"). */
function withLinkProblems<T extends LoadResult>(loaded: T, links: readonly SkippedLink[]): T {
  if (links.length === 0) return loaded;
  const extra = links.map((l) => at(l.rel, 'manifest.symlink', `${l.rel} is ${l.reason}`));
  return { ...loaded, desired: null, problems: sortProblems([...loaded.problems, ...extra]) };
}

export interface RepositoryLoadOptions extends LoadOptions {
  /** How a file is named in problems and messages (default: relative to the repository root). */
  display?: (abs: string) => string;
}

export interface RepositoryLoadResult extends LoadResult {
  /** The repository root the names were resolved against (of the first given path, when several). */
  root: string;
}

/** A given path: where it is, and whether it exists (and is a folder). */
interface Given {
  abs: string;
  st: Stats | undefined;
}

/**
 * `validate PATH...`: the given files and folders are checked and reported, and every manifest of
 * their repository (see `repositoryRoot`) is read too, so a single file resolves its references,
 * and a name defined twice is found, whichever files were given. Problems of the files that were
 * not given are not reported; `desired`, `files` and `documents` cover the given files only.
 * Each path is checked against its own repository (the root it alone would get): paths of two
 * repositories, or of two roots of one git repository (a `.packsyncignore` per environment), are
 * two loads reported together. Paths with no `.git` or `.packsyncignore` above them share one
 * root, the folder holding them all.
 */
export async function loadRepository(paths: readonly string[], opts: RepositoryLoadOptions = {}): Promise<RepositoryLoadResult> {
  const unique = [...new Set((paths.length > 0 ? paths : ['.']).map((p) => resolve(p)))];
  const given: Given[] = await Promise.all(unique.map(async (abs) => ({ abs, st: await stat(abs).catch(() => undefined) })));
  const existing = given.filter((g) => g.st !== undefined);
  const groups = await byRoot(existing);
  const first = groups.keys().next().value ?? commonParent(given.map((g) => dirname(g.abs)));
  const shownFrom = (root: string) => opts.display ?? ((abs: string): string => relative(root, abs).split(sep).join('/'));
  const missing = given
    .filter((g) => g.st === undefined)
    .map((g) => shownFrom(first)(g.abs))
    .map((shown) => at(shown, 'file.not-found', `${shown} does not exist`));
  if (existing.length === 0) return { desired: null, problems: missing, files: [], documents: 0, root: first };
  const loads: LoadResult[] = [];
  for (const [root, group] of groups) loads.push(await loadFromRoot(root, group, { ...opts, display: shownFrom(root) }));
  const merged = mergeLoads(loads, first);
  return { ...merged, problems: sortProblems([...missing, ...merged.problems]), root: first };
}

/**
 * The given paths by the root each alone would get (`repositoryRoot` of its folder), in the order
 * given; the paths no marker is found above for share the folder holding them all.
 */
async function byRoot(existing: readonly Given[]): Promise<Map<string, Given[]>> {
  const marked = await Promise.all(existing.map((g) => markedRoot(g.st!.isDirectory() ? g.abs : dirname(g.abs))));
  const unmarked = existing.filter((_, i) => marked[i] === undefined);
  const loose = commonParent(unmarked.map((g) => (g.st!.isDirectory() ? g.abs : dirname(g.abs))));
  const groups = new Map<string, Given[]>();
  existing.forEach((g, i) => {
    const root = marked[i] ?? loose;
    groups.set(root, [...(groups.get(root) ?? []), g]);
  });
  return groups;
}

/** One repository's load: every manifest under `root` read, the `given` paths' files reported. */
async function loadFromRoot(
  root: string,
  given: readonly Given[],
  opts: RepositoryLoadOptions & { display: (abs: string) => string },
): Promise<LoadResult> {
  const { display } = opts;
  const followSymlinks = opts.followSymlinks ?? false;
  const walk = await listManifestFiles(root, { followSymlinks, boundary: root });
  const walked = walk.files.map((rel) => resolve(root, rel));
  const reported = new Set<string>();
  const extra: string[] = [];
  for (const g of given) {
    if (!g.st!.isDirectory()) {
      reported.add(g.abs);
      extra.push(g.abs);
    } else if (g.abs !== root && (await walkSkips(root, relative(root, g.abs)))) {
      // A folder the repository does not walk, named on purpose: its files are read as given.
      for (const rel of await listYamlFiles(g.abs, { followSymlinks, boundary: g.abs })) {
        const abs = resolve(g.abs, rel);
        reported.add(abs);
        extra.push(abs);
      }
    } else {
      for (const abs of walked) if (isInside(g.abs, abs)) reported.add(abs);
    }
  }
  const all = [...new Set([...walked, ...extra])].sort(compare);
  const sources = all.map((abs) => ({ file: display(abs), abs, reported: reported.has(abs) }));
  const none = given.map((g) => display(g.abs)).join(', ');
  return withLinkProblems(
    await loadSources(root, sources, opts, { contentFilter: true, none, linksRefused: walk.links.length > 0 }),
    walk.links,
  );
}

/**
 * Several roots' loads as one result: every problem (a file two given paths reach is said once),
 * the desired sets together while none has an error.
 */
function mergeLoads(loads: readonly LoadResult[], root: string): LoadResult {
  if (loads.length === 1) return loads[0]!;
  const seen = new Set<string>();
  const problems = loads
    .flatMap((l) => l.problems)
    .filter((p) => {
      const key = JSON.stringify([p.file, p.line, p.column, p.rule, p.message]);
      return seen.has(key) ? false : (seen.add(key), true);
    });
  const files = [...new Set(loads.flatMap((l) => l.files))];
  const documents = loads.reduce((n, l) => n + l.documents, 0);
  const generated = loads.some((l) => l.generated) ? { generated: loads.flatMap((l) => l.generated ?? []) } : {};
  const valid = loads.every((l) => l.desired !== null) && !problems.some((p) => p.severity === 'error');
  return {
    desired: valid
      ? mergeDesired(
          loads.map((l) => l.desired!),
          root,
        )
      : null,
    problems,
    files,
    documents,
    ...generated,
  };
}

function mergeDesired(all: readonly DesiredModel[], root: string): DesiredModel {
  const desired: DesiredModel = {
    root,
    packages: all.flatMap((d) => d.packages),
    flows: all.flatMap((d) => d.flows),
    deployments: all.flatMap((d) => d.deployments),
    tenantUploads: all.flatMap((d) => d.tenantUploads),
  };
  const baselines = all.flatMap((d) => d.baselines ?? []);
  if (baselines.length > 0) desired.baselines = baselines;
  return desired;
}

/**
 * One manifest file's bytes, read synchronously: manifests are small files a load reads in one
 * burst, and the promise API's open/stat/read/close hops through the thread pool made reading
 * 3,770 of them ~250 ms against ~30 ms this way (docs/performance.md, fleet-cli). Nothing else runs
 * while a pass loads its manifests; the agent's status page waits those milliseconds.
 */
function readSource(file: string, abs: string, maxBytes: number): { rel: string; bytes?: Buffer; stat?: BigIntStats; problem?: Problem } {
  let fd: number | undefined;
  try {
    fd = openSync(abs, 'r');
    // Taken before the bytes: a write after it changes the ctime, so the next load reads the file (stat-record.ts).
    const stat = fstatSync(fd, { bigint: true });
    const size = stat.size;
    if (size > maxBytes)
      return { rel: file, problem: at(file, 'file.too-large', `${size} bytes is more than the ${maxBytes} a manifest file may have`) };
    return { rel: file, bytes: readFileSync(fd), stat };
  } catch (e) {
    return { rel: file, problem: at(file, 'file.unreadable', `cannot read this file (${(e as NodeJS.ErrnoException).code ?? String(e)})`) };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Source {
  /** How the file is named in problems. */
  file: string;
  abs: string;
  /** Its problems, documents and objects are part of the result (else it only lends its names). */
  reported: boolean;
}

/** Names a file that could not be read or parsed may define: references to them are held back. */
interface Held {
  all: boolean;
  kinds: Set<string>;
  names: Set<string>;
}

async function loadSources(
  root: string,
  sources: readonly Source[],
  opts: LoadOptions,
  how: { contentFilter: boolean; none?: string; contentRoot?: string; linksRefused?: boolean },
): Promise<LoadResult> {
  const contentRoot = how.contentRoot ?? root;
  const rootReal = await realpath(contentRoot);
  const reported = new Set(sources.filter((s) => s.reported).map((s) => s.file));
  const problems: Problem[] = [];
  const held: Held = { all: false, kinds: new Set<string>(), names: new Set<string>() };
  const cached = new CachedLoad(opts.cache);
  // The files first, then the cache's entries: whether they are the last valid load's files is known
  // before the entries (megabytes at fleet scale) are read.
  await cached.openValid();
  // Long synchronous stretches give way to the event loop: a pass's first reads are in flight meanwhile.
  const turns = new Turns();
  const keeping: Keeping = { cached, opts, reported, turns };
  // A symlink the walk refused makes the load invalid after it returns (withLinkProblems): such a
  // load is never said valid, recorded as valid, or kept (its reads would be made for nothing).
  const keyed = opts.cache !== undefined && !how.linksRefused && sources.every((x) => x.reported);
  const byStat = keyed ? await loadByStat(root, sources, keeping) : undefined;
  if (byStat) return byStat;
  const decodedFiles = await readDecoded(sources, opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, cached, {
    out: { problems, held },
    digestAll: opts.revision === true,
    turns,
    // Only a load that can be recorded as valid keeps its files' stats (stat-record.ts).
    ...(keyed ? { statsUnder: root } : {}),
  });
  const key = keyed ? filesKey(root, decodedFiles) : undefined;
  const kept = key !== undefined && problems.length === 0 ? await keptLoad(key, decodedFiles, keeping) : undefined;
  if (kept) {
    await cached.keepStats(key!, decodedFiles);
    return kept;
  }
  await cached.open();
  let parsed = await cached.parseAll(decodedFiles, turns);
  if (how.contentFilter) {
    const absOf = new Map(sources.map((s) => [s.file, s.abs]));
    parsed = withoutContentFiles(parsed, contentRoot, (f) => absOf.get(f) ?? resolve(root, f));
  }
  // Files that only lend their names come first, so a name defined twice is reported on a given file.
  parsed = [...parsed.filter((f) => !reported.has(f.file)), ...parsed.filter((f) => reported.has(f.file))];
  const shown = parsed.filter((f) => reported.has(f.file));
  if (how.none !== undefined && shown.length === 0 && problems.length === 0) {
    problems.push(at(how.none, 'manifest.none', `no *.yaml or *.yml files under ${how.none}`, 'warning'));
  }
  const checked = await checkParsed(parsed, reported, cached, { problems, held }, turns);
  // Expand before validating: what an authored kind generates is checked like a hand-written document.
  const expansion = expandAuthored(checked.authored, { handWritten: checked.records, now: opts.now ?? new Date() });
  problems.push(...expansion.problems);
  for (const d of expansion.documents) {
    if (turns.due()) await turns.next();
    const c = checkDocument(d);
    problems.push(...c.problems);
    if (c.record) checked.records.push(c.record);
  }
  // The YAML error is the one to fix: a reference to a name its file may define is not reported too.
  const heldBack = (kind: Kind, name: string): boolean => held.all || held.kinds.has(kind) || held.names.has(`${kind}/${name}`);
  const absOfFile = new Map(sources.map((s) => [s.file, s.abs]));
  const folderOf = (file: string): string | undefined => {
    const abs = absOfFile.get(file);
    return abs === undefined ? undefined : dirname(abs);
  };
  const rules = await checkRules(checked.records, contentRoot, rootReal, { heldBack, folderOf, turns });
  problems.push(...rules.problems);

  const known = new Set(sources.map((s) => s.file));
  const sorted = sortProblems(problems.filter((p) => reported.has(p.file) || !known.has(p.file)));
  const files = shown.map((f) => f.file);
  const documents = checked.documents;
  const generated = opts.keepGenerated === true && expansion.documents.length > 0 ? { generated: expansion.documents } : {};
  if (sorted.some((p) => p.severity === 'error')) {
    await cached.commit(parsed);
    return { desired: null, problems: sorted, files, documents, ...generated };
  }
  // Known valid now: the reads start while the parse cache and the record are written (the cache
  // first: it makes the folder the record goes in) and the desired set is built. The cache,
  // megabytes in 64 KiB writes, had held the first read back (docs/performance.md, patch-tuesday).
  if (!how.linksRefused) opts.onKnownValid?.('checks');
  await cached.commit(parsed);
  if (key !== undefined) {
    await cached.markValid(key);
    await cached.keepStats(key, decodedFiles);
  }
  const desired = await desiredOf(root, checked.records, reported, { baselines: expansion.baselines, content: rules.content }, turns);
  const revision = opts.revision === true ? { revision: revisionOf(decodedFiles, reported, desired, expansion.documents) } : {};
  if (key !== undefined) await cached.keepSnapshot(key, { desired, problems: sorted, files, documents }, turns);
  return { desired, problems: sorted, files, documents, ...generated, ...revision };
}

function revisionOf(
  decoded: readonly { file: string; sha?: string }[],
  reported: ReadonlySet<string>,
  desired: DesiredModel,
  generated: readonly GeneratedDocument[],
): string {
  const files = decoded.flatMap((f) => (reported.has(f.file) && f.sha !== undefined ? [{ file: f.file, sha: f.sha }] : []));
  return loadRevision({ files, desired, generated: generated.filter((d) => reported.has(d.file)).map((d) => d.value) });
}

/** What a load needs to take the last valid load's kept result. */
interface Keeping {
  cached: CachedLoad;
  opts: LoadOptions;
  reported: ReadonlySet<string>;
  turns: Turns;
}

/**
 * The last valid load's result when every file still has the stat it had then: no file is read
 * (stat-record.ts). Undefined otherwise, and the files are read.
 */
async function loadByStat(root: string, sources: readonly Source[], c: Keeping): Promise<LoadResult | undefined> {
  const files = c.cached.unchangedFiles(sources);
  const kept = files ? await keptLoad(filesKey(root, files), files, c) : undefined;
  if (kept) c.cached.returnedByStat();
  return kept;
}

/**
 * The result the last valid load of `key` kept, when `files` are its files (the parse cache's
 * record): that load's result is this one's (desired-snapshot.ts). Reads start once it is known.
 */
async function keptLoad(
  key: string | undefined,
  files: readonly { file: string; sha?: string }[],
  c: Keeping,
): Promise<LoadResult | undefined> {
  if (key === undefined || !c.cached.knownValid(key)) return undefined;
  c.opts.onKnownValid?.('record');
  const kept = await c.cached.snapshot(key, c.turns);
  if (!kept) return undefined;
  c.opts.onKnownValid?.('checks');
  const revision = c.opts.revision === true ? { revision: revisionOf(files, c.reported, kept.desired, []) } : {};
  return { ...kept, ...revision };
}

/**
 * Each file read and decoded, one at a time from bytes to text and digest: the bytes of 3,770
 * files held until all were parsed were 15 MB of a load's peak (docs/performance.md, fleet-cli).
 * A file that cannot be read or decoded is a problem, and holds back every reference.
 */
async function readDecoded(
  sources: readonly Source[],
  maxBytes: number,
  cached: CachedLoad,
  o: { out: { problems: Problem[]; held: Held }; digestAll: boolean; turns: Turns; statsUnder?: string },
): Promise<{ file: string; sha?: string; text: string; stat: string | null }[]> {
  const { out, digestAll } = o;
  const decodedFiles: { file: string; sha?: string; text: string; stat: string | null }[] = [];
  const readAt = cached.now();
  const windowOf = o.statsUnder === undefined ? undefined : racyWindow(o.statsUnder);
  for (const { file, abs } of sources) {
    if (o.turns.due()) await o.turns.next();
    const { rel, bytes, stat, problem } = readSource(file, abs, maxBytes);
    if (problem || !bytes) {
      if (problem) out.problems.push(problem);
      out.held.all = true;
      continue;
    }
    const decoded = decodeManifest(bytes);
    if (!decoded.ok) {
      const { line, column, message } = decoded;
      out.problems.push({ file: rel, line, column, pointer: '', rule: 'file.encoding', message, severity: 'error' });
      out.held.all = true;
      continue;
    }
    const settledStat = stat && windowOf && settled(stat, readAt, windowOf(stat)) ? statKey(stat) : null;
    decodedFiles.push({ file: rel, text: decoded.text, ...cached.digestOf(bytes, digestAll), stat: settledStat });
  }
  return decodedFiles;
}

/** Every document of the parsed files checked (or its check taken from the cache); foreign YAML said once. */
async function checkParsed(
  parsed: readonly ParsedFile[],
  reported: ReadonlySet<string>,
  cached: CachedLoad,
  out: { problems: Problem[]; held: Held },
  turns: Turns,
): Promise<{ records: DocRecord[]; authored: AuthoredRecord[]; documents: number }> {
  const records: DocRecord[] = [];
  const authored: AuthoredRecord[] = [];
  let documents = 0;
  // Kubernetes YAML next to the manifests (deploy/, a Helm chart): not packsync's, said once.
  const foreign: { file: string; line: number; column: number; what: string }[] = [];
  for (const f of parsed) {
    if (turns.due()) await turns.next();
    const isShown = reported.has(f.file);
    out.problems.push(...f.problems);
    for (const b of f.broken) {
      if (b.kind === undefined) out.held.all = true;
      else if (b.name === undefined) out.held.kinds.add(b.kind);
      else out.held.names.add(`${b.kind}/${b.name}`);
    }
    for (const [i, d] of f.documents.entries()) {
      if (isShown) documents++;
      const checked = cached.check(f, i, d);
      if (checked.foreign) {
        if (isShown) foreign.push(checked.foreign);
        continue;
      }
      out.problems.push(...checked.problems);
      if (checked.record) records.push(checked.record);
      if (checked.authored?.valid) authored.push(checked.authored);
    }
  }
  const f = foreign[0];
  if (f) {
    const message = `skipped ${foreign.length} document(s) whose apiVersion is not ${API_VERSION.split('/')[0]!}/… (first: ${f.what}): not packsync manifests`;
    out.problems.push({
      file: f.file,
      line: f.line,
      column: f.column,
      pointer: '/apiVersion',
      rule: 'manifest.foreign',
      message,
      severity: 'warning',
    });
  }
  return { records, authored, documents };
}

/** The desired set: every valid record of a reported file, with its source and field positions. */
async function desiredOf(
  root: string,
  records: readonly DocRecord[],
  reported: ReadonlySet<string>,
  o: { baselines: DesiredModel['baselines'] & object; content: Map<DocRecord, ContentInfo> },
  turns: Turns,
): Promise<DesiredModel> {
  const desired: DesiredModel = { root, packages: [], flows: [], deployments: [], tenantUploads: [] };
  const baselines = o.baselines.filter((b) => reported.has(b.source.file));
  if (baselines.length > 0) desired.baselines = baselines;
  for (const r of records) {
    if (turns.due()) await turns.next();
    if (!reported.has(r.doc.file)) continue;
    const positions = fieldPositions(r.doc, r.kind, r.data);
    const base = {
      apiVersion: API_VERSION,
      kind: r.kind,
      metadata: r.data.metadata,
      spec: r.data.spec,
      source: { file: r.doc.file, ...r.doc.start },
    };
    const m = positions ? { ...base, positions } : base;
    addDesired(desired, r, m, o.content.get(r));
  }
  return desired;
}

/** Puts one valid object into its kind's list; every kind is named (no branch assumes the rest). */
function addDesired(desired: DesiredModel, r: DocRecord, m: object, content: ContentInfo | undefined): void {
  switch (r.kind) {
    case 'Package':
      desired.packages.push((content ? { ...m, content } : m) as PackageManifest);
      return;
    case 'Flow':
      desired.flows.push(m as FlowManifest);
      return;
    case 'Deployment': {
      const toWave = ['spec', 'promotion', 'toWave'] as const;
      const has = (r.data.spec as { promotion?: { toWave?: unknown } } | undefined)?.promotion?.toWave !== undefined;
      desired.deployments.push(
        (has ? { ...m, toWaveSource: { file: r.doc.file, ...r.doc.locate(toWave, 'value') } } : m) as DeploymentManifest,
      );
      return;
    }
    case 'TenantUpload':
      desired.tenantUploads.push(m as TenantUploadManifest);
      return;
    default: {
      const unknownKind: never = r.kind;
      throw new Error(`no desired list for kind ${String(unknownKind)}`);
    }
  }
}

/**
 * YAML files inside a custom package's content directory are package content (a config file
 * shipped with the installer), not manifests.
 */
function withoutContentFiles(files: ParsedFile[], root: string, absOf: (file: string) => string): ParsedFile[] {
  const dirs: { dir: string; declaredIn: string }[] = [];
  for (const f of files) {
    for (const d of f.documents) {
      const v = d.value as { kind?: unknown; spec?: { custom?: { content?: unknown } } } | null | undefined;
      const c = v?.kind === 'Package' ? v.spec?.custom?.content : undefined;
      if (typeof c !== 'string' || c === '' || c.split(/[\\/]/).includes('..')) continue;
      const dir = resolve(root, c);
      // `content: .` is an error reported later; it must not hide every manifest first.
      if (dir !== root) dirs.push({ dir, declaredIn: f.file });
    }
  }
  if (dirs.length === 0) return files;
  return files.filter((f) => !dirs.some((d) => d.declaredIn !== f.file && isInside(d.dir, absOf(f.file))));
}

export { commonParent, repositoryRoot };
