/**
 * `packsync update`'s decisions (docs/manifests.md, "Version policy"): for each catalog Package with an
 * `update` policy, the version to move to. Reads the catalog once (one list read, one detail read per
 * followed app) and the service's clock; writes nothing.
 */
import { positionOf } from '../manifests/positions.js';
import type { PacksyncApi } from '../api/operations.js';
import type { V1AppViewModel } from '../api/wire/index.js';
import { loadManifests } from '../manifests/load.js';
import { manifestCacheFor } from '../manifests/parse-cache.js';
import type { GeneratedDocument } from '../manifests/generated-document.js';
import type { PackageManifest, Problem } from '../manifests/model.js';
import { parseDuration } from '../manifests/promotion-values.js';
import { packageIdentityOf } from '../manifests/identity-rules.js';
import { chooseVersion } from './versions.js';
import { mapLimit } from '../util/map-limit.js';
import { readsAtOnce } from '../live/read-concurrency.js';
import type { CatalogVersion } from './versions.js';

export interface UpdateChange {
  /** `Package/seven-zip`. */
  key: string;
  name: string;
  /** The manifest file, relative to the path given, and absolute. */
  file: string;
  absFile: string;
  app: string;
  from: string;
  to: string;
  /** Release time of the new version (ISO). */
  releasedAt: string;
  /** The policy's group, or the package's name. */
  group: string;
  grouped: boolean;
  /**
   * Where the `version` scalar is written when it is not the package's own `spec.catalog.version`:
   * the app entry of a Baseline (document index in the file, and the path in that document).
   */
  at?: { index: number; path: (string | number)[] };
  /** Where the load found the package's own `version` scalar (1-based): the edit needs no parse when it still reads `from` there. */
  placed?: { line: number; column: number };
}

export interface UpdatePlan {
  changes: UpdateChange[];
  problems: Problem[];
  /** Catalog reads made: one list plus one per followed app. */
  reads: number;
}

const followed = (m: PackageManifest): boolean => m.spec.catalog?.update !== undefined && typeof m.spec.catalog.version === 'string';

/**
 * `cacheDir`: a local state directory whose manifest cache the load uses (as plan and apply do), so
 * an update after an apply parses only the files that changed since.
 */
export async function planUpdates(path: string, root: string, api: PacksyncApi, cacheDir?: string): Promise<UpdatePlan> {
  const loaded = await loadManifests(path, { keepGenerated: true, cache: manifestCacheFor(cacheDir) });
  if (!loaded.desired) return { changes: [], problems: loaded.problems, reads: 0 };
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) return { changes: [], problems: loaded.problems, reads: 0 };
  const packages = loaded.desired.packages.filter(followed);
  if (packages.length === 0) return { changes: [], problems: [], reads: 0 };
  const ctx: PlanContext = {
    api,
    root,
    findApp: catalogIndex((await api.searchApps({ disablePaging: true })).items),
    reads: 1,
    versionsByApp: new Map(),
    generated: new Map(
      (loaded.generated ?? [])
        .filter((g) => (g.value as { kind?: string }).kind === 'Package')
        .map((g) => [(g.value as { metadata: { name: string } }).metadata.name, g]),
    ),
    problems: [],
    changes: [],
  };
  // Every followed app's details at once (twice the client's slots going, live/read-concurrency.ts): 250 apps at 20 ms
  // each would otherwise be 5 s of waiting in a row. Decisions then run in manifest order.
  const appIds = [...new Set(packages.map((m) => ctx.findApp(m.spec.catalog!.app)?.id).filter((id): id is string => id !== undefined))];
  await mapLimit(appIds, readsAtOnce(api, undefined), (id) => versionsOf(id, ctx));
  for (const m of packages) await planPackage(m, ctx);
  keepApart(loaded.desired.packages, ctx);
  return { changes: ctx.changes, problems: ctx.problems, reads: ctx.reads };
}

interface PlanContext {
  api: PacksyncApi;
  root: string;
  /** The catalog's app by id or name (one list read). */
  findApp: (nameOrId: string) => V1AppViewModel | undefined;
  /** Catalog reads made so far. */
  reads: number;
  versionsByApp: Map<string, CatalogVersion[]>;
  /** Packages a Baseline generated, by name: their versions are written in the Baseline. */
  generated: Map<string, GeneratedDocument>;
  problems: Problem[];
  changes: UpdateChange[];
}

/** The versions of an app, newest first, read once per app. */
async function versionsOf(appId: string, ctx: PlanContext): Promise<CatalogVersion[]> {
  let versions = ctx.versionsByApp.get(appId);
  if (!versions) {
    versions = (await ctx.api.getApp(appId)).versions.map((v) => ({
      version: v.version,
      releasedMs: Date.parse(v.createdDate.replace(/(\.\d{3})\d+/, '$1')),
    }));
    ctx.versionsByApp.set(appId, versions);
    ctx.reads++;
  }
  return versions;
}

/** One followed package: its change, or the problem that stops it, into `ctx`. */
async function planPackage(m: PackageManifest, ctx: PlanContext): Promise<void> {
  const c = m.spec.catalog!;
  const app = ctx.findApp(c.app);
  if (!app) {
    ctx.problems.push(problemAt(m, 'update.unknown-app', `catalog app "${c.app}" was not found`));
    return;
  }
  const now = ctx.api.serviceTime?.() ?? new Date();
  const policy = c.update!;
  const choice = chooseVersion(c.version!, await versionsOf(app.id, ctx), policy, {
    nowMs: now.getTime(),
    minAgeMs: policy.minAge ? parseDuration(policy.minAge) : 0,
  });
  for (const s of choice.unknownSkips)
    ctx.problems.push(
      problemAt(m, 'update.unknown-skip', `skip "${s}" is not a version of ${app.name}`, { severity: 'warning', field: 'skip' }),
    );
  if (choice.noneOnTrack) {
    const there = choice.noneOnTrack.join(', ');
    ctx.problems.push(
      problemAt(m, 'update.track', `track "${policy.track ?? 'latest'}" matches no version of ${app.name}; there are ${there}`, {
        field: 'track',
      }),
    );
    return;
  }
  if (!choice.next) return;
  const at = versionAt(m, ctx.generated.get(m.metadata.name));
  if (at === null) {
    const why = `the version of ${m.metadata.name} comes from a Baseline's defaults, override or exception; packsync update bumps only versions written in an app entry (${c.version!} → ${choice.next.version} is available)`;
    ctx.problems.push(problemAt(m, 'update.baseline-layer', why, { severity: 'warning' }));
    return;
  }
  const absFile = resolveIn(ctx.root, m.source.file);
  // Rings whose packages differ (a scope override) share the app entry's version: one edit, listed once.
  const same = (x: UpdateChange): boolean =>
    at !== undefined && x.at !== undefined && x.absFile === absFile && x.at.index === at.index && x.at.path.join('.') === at.path.join('.');
  if (ctx.changes.some(same)) return;
  const placed = at ? undefined : m.positions?.['spec.catalog.version'];
  ctx.changes.push({
    ...(at ? { at } : {}),
    ...(placed && placed.file === m.source.file ? { placed: { line: placed.line, column: placed.column } } : {}),
    key: `Package/${m.metadata.name}`,
    name: m.metadata.name,
    file: m.source.file,
    absFile,
    app: app.name,
    from: c.version!,
    to: choice.next.version,
    releasedAt: new Date(choice.next.releasedMs).toISOString(),
    group: policy.group ?? m.metadata.name,
    grouped: policy.group !== undefined,
  });
}

/**
 * Where the version to bump is written: undefined for a hand-written Package (its own
 * `spec.catalog.version`), the app entry of a Baseline for a generated one, or null when a Baseline
 * layer that also applies to other apps or rings wrote it (bumping it there would move them too).
 */
function versionAt(m: PackageManifest, g: GeneratedDocument | undefined): UpdateChange['at'] | null | undefined {
  if (!g) return undefined;
  const origin = g.originOf(['spec', 'catalog', 'version']);
  if (origin.at[1] !== 'apps' || origin.at[3] !== 'version') return null;
  return { index: g.index, path: [...origin.at] };
}

/** A catalog app by id, else by name (case-insensitive; the first of a name), from maps built once. */
function catalogIndex(catalog: readonly V1AppViewModel[]): (nameOrId: string) => V1AppViewModel | undefined {
  const byId = new Map<string, V1AppViewModel>();
  const byName = new Map<string, V1AppViewModel>();
  for (const a of catalog) {
    if (!byId.has(a.id.toLowerCase())) byId.set(a.id.toLowerCase(), a);
    if (!byName.has(a.name.toLowerCase())) byName.set(a.name.toLowerCase(), a);
  }
  return (nameOrId) => byId.get(nameOrId.toLowerCase()) ?? byName.get(nameOrId.toLowerCase());
}

/**
 * A move that would give a Package the live identity of another (a ring pinned at the version the
 * followed one would move to) would leave the manifests invalid (`package.duplicate`, as `validate`
 * says it): it is not made, and a warning names the other; every other move goes ahead.
 * (Regression: update --commit committed such a tree, which no plan or apply could load.)
 */
function keepApart(all: readonly PackageManifest[], ctx: PlanContext): void {
  const to = new Map(ctx.changes.map((c) => [c.name, c.to]));
  // Each package with the identity it would have after the moves, grouped by that identity.
  const holders = new Map<string, { m: PackageManifest; what: string }[]>();
  for (const m of all) {
    const version = to.get(m.metadata.name);
    const id = packageIdentityOf(version === undefined ? m : { spec: { ...m.spec, catalog: { ...m.spec.catalog, version } } });
    if (id) holders.set(id.key, [...(holders.get(id.key) ?? []), { m, what: id.what }]);
  }
  const clash = new Map<string, { m: PackageManifest; other: PackageManifest; what: string }>();
  for (const same of holders.values()) {
    if (same.length < 2) continue;
    for (const { m, what } of same)
      if (to.has(m.metadata.name)) clash.set(m.metadata.name, { m, other: same.find((o) => o.m !== m)!.m, what });
  }
  if (clash.size === 0) return;
  ctx.changes = ctx.changes.filter((c) => {
    const found = clash.get(c.name);
    if (!found) return true;
    const { m, other, what } = found;
    const where = `${other.source.file}:${other.source.line}:${other.source.column}`;
    const message = `${c.key} is not moved ${c.from} → ${c.to}: Package "${other.metadata.name}" (${where}) ${what}; remove or repoint one of them`;
    ctx.problems.push(problemAt(m, 'update.duplicate', message, { severity: 'warning' }));
    return false;
  });
}

/** A problem of the version policy, at its field (`track`, `skip`) when the load located it, else at the document. */
function problemAt(
  m: PackageManifest,
  rule: string,
  message: string,
  o: { severity?: Problem['severity']; field?: 'track' | 'skip' } = {},
): Problem {
  const at = positionOf(m, o.field && `spec.catalog.update.${o.field}`);
  const pointer = o.field ? `/spec/catalog/update/${o.field}` : '/spec/catalog/update';
  return { file: at.file, line: at.line, column: at.column, pointer, rule, message, severity: o.severity ?? 'error' };
}

function resolveIn(root: string, file: string): string {
  return file.startsWith('/') ? file : `${root.replace(/\/$/, '')}/${file}`;
}
