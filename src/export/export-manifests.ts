/**
 * Onboarding: turn what exists live (packages, flows, their deployments, tenant uploads) into
 * manifests that validate and that `apply --adopt` takes over without any API write, after which
 * `plan` has nothing to do. Objects the inventory already owns are not written again.
 *
 * A manifest finds its live object by identity (package: name + version, or app + version + scope;
 * flow: display name; deployment: flow + package; upload: tenant + package). When several live
 * objects share one identity, `--adopt` takes one of them (the newest package, the oldest flow, the
 * newest deployment), so only that one is exported and the others are reported as skipped: a second
 * manifest would adopt the same object again.
 */
import { stringify } from 'yaml';
import type { Inventory } from '../state/inventory-types.js';
import { FLOW_FLAGS, INSTALLER_SCOPE } from '../api/wire/index.js';
import type { FlowFlagName, V1PackageDetailsViewModel, V1PackageViewModel, V1TaskViewModel } from '../api/wire/index.js';
import type { LiveState } from '../live/types.js';
import { API_VERSION } from '../manifests/model.js';
import type { Kind } from '../manifests/model.js';
import { packageNaturalKey } from '../live/identity.js';
import { ownedBy, uniqueNamer } from './owned.js';
import type { Owned } from './owned.js';
import { NotExportable, catalogSpec, customSpec } from './package-spec.js';

export interface ExportInput {
  live: LiveState;
  /** `GET /v1/package/{id}` of every live package, by id. */
  details: ReadonlyMap<string, V1PackageDetailsViewModel>;
  inventory: Inventory;
  /**
   * Where the written files sit, relative to their repository root ('/'-separated; '' when they are
   * the root). `content:` paths are resolved against the repository root by validate and plan, so
   * they are written with this prefix.
   */
  outInRoot?: string;
}

export interface SkippedObject {
  kind: Kind;
  /** Live id (for a tenant upload: the newest task's id). */
  id: string;
  /** Display name in the service, to recognise it. */
  label: string;
  reason: string;
}

/** One manifest as the export builds it (before it is written as YAML). */
export interface ExportedManifest {
  apiVersion: string;
  kind: Kind;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
}

/** What the export found, as manifests by kind, before they are written (`--as-baseline` folds some). */
export interface ExportedObjects extends Omit<ExportedFiles, 'files' | 'counts'> {
  packages: ExportedManifest[];
  flows: ExportedManifest[];
  deployments: ExportedManifest[];
  uploads: ExportedManifest[];
}

export interface ExportedFiles {
  /** File name → YAML text. */
  files: Record<string, string>;
  /** Content directories (relative to the repository root) that custom packages point at; the operator fills them. */
  contentDirs: string[];
  /**
   * Whether an exported object names an object packsync already owns (by its manifest name): the
   * export then validates and plans only together with the manifests that define those.
   */
  refersToOwned: boolean;
  /** The owned objects (`Kind/name`, sorted) exported objects refer to: their manifests are defined elsewhere. */
  ownedRefs: string[];
  counts: { packages: number; flows: number; deployments: number; tenantUploads: number };
  /** Live objects not written because packsync already owns them. */
  owned: number;
  /** Live objects not written for any other reason, with that reason. */
  skipped: SkippedObject[];
}

const HEADER =
  '# yaml-language-server: $schema=./node_modules/packsync/schemas/v1/packsync.json\n# Exported by `packsync export`: review, commit, then `packsync apply --adopt`.\n';
const PACKAGES_NOTE =
  '# runAnalysis is not written: the service does not return it. Adding it to an exported package later\n# changes its spec, and packsync then creates a new package.\n';
const UPLOADS_NOTE =
  '# uploadMsixAsWin32 is not written: the service does not return it, so the default (true) is assumed.\n# Changing it later uploads the package to that tenant again.\n';

function flagNames(mask: number): FlowFlagName[] {
  return (Object.keys(FLOW_FLAGS) as FlowFlagName[]).filter((k) => (mask & FLOW_FLAGS[k]) !== 0);
}

function scopeName(n: number): 'machine' | 'user' | undefined {
  return n === INSTALLER_SCOPE.user ? 'user' : n === INSTALLER_SCOPE.machine ? 'machine' : undefined;
}

/** Refers to a catalog object by its name when that name is unique, else by id (the planner accepts both). */
function namer<T extends { id: string }>(items: readonly T[], nameOf: (x: T) => string): (id: string) => string {
  const count = new Map<string, number>();
  for (const x of items) count.set(nameOf(x).toLowerCase(), (count.get(nameOf(x).toLowerCase()) ?? 0) + 1);
  const byId = new Map(items.map((x) => [x.id, nameOf(x)]));
  return (id) => {
    const n = byId.get(id);
    return n && count.get(n.toLowerCase()) === 1 ? n : id;
  };
}

function newestFirst<T extends { created: string }>(xs: T[]): T[] {
  return [...xs].sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = out.get(k);
    if (list) list.push(x);
    else out.set(k, [x]);
  }
  return out;
}

const UNUSABLE_PACKAGE: Partial<Record<V1PackageViewModel['state'], string>> = {
  Error: 'processing failed in the service (state Error); a manifest for it could never converge',
  WaitingForContent: 'its content was never uploaded (state WaitingForContent)',
};

export function exportManifests(input: ExportInput): ExportedFiles {
  return exportedFiles(exportObjects(input));
}

/** The files of an export: one per kind, plus any extra files (a baseline) given whole. */
export function exportedFiles(o: ExportedObjects, extra: { name: string; manifests: unknown[] }[] = []): ExportedFiles {
  const docs = (note: string, xs: readonly unknown[]): string =>
    HEADER + note + xs.map((x) => stringify(x, { lineWidth: 0 })).join('---\n');
  const files: Record<string, string> = {};
  for (const e of extra) if (e.manifests.length) files[e.name] = docs('', e.manifests);
  if (o.packages.length) files['packages.yaml'] = docs(PACKAGES_NOTE, o.packages);
  if (o.flows.length) files['flows.yaml'] = docs('', o.flows);
  if (o.deployments.length) files['deployments.yaml'] = docs('', o.deployments);
  if (o.uploads.length) files['tenant-uploads.yaml'] = docs(UPLOADS_NOTE, o.uploads);
  const { packages, flows, deployments, uploads, ...rest } = o;
  return {
    ...rest,
    files,
    counts: { packages: packages.length, flows: flows.length, deployments: deployments.length, tenantUploads: uploads.length },
  };
}

/** What the exporters of each kind share: the input, names already given, and what was skipped. */
interface ExportContext {
  input: ExportInput;
  owned: Owned;
  appRef: (id: string) => string;
  templateRef: (id: string) => string;
  skipped: SkippedObject[];
  ownedCount: number;
  /** Owned objects' manifest names (`Kind/name`), and whether an exported object refers to one. */
  ownedNames: Set<string>;
  refersToOwned: boolean;
  ownedRefs: Set<string>;
  /** Live package id → manifest name (exported or owned), or why it has none. */
  pkgName: Map<string, string>;
  pkgWhyNot: Map<string, string>;
}

function skip(ctx: ExportContext, kind: Kind, id: string, label: string, reason: string): void {
  ctx.skipped.push({ kind, id, label, reason });
}

/** A reference to another manifest, noting when it names one packsync already owns. */
function ref(ctx: ExportContext, kind: Kind, name: string): string {
  if (ctx.ownedNames.has(`${kind}/${name}`)) {
    ctx.refersToOwned = true;
    ctx.ownedRefs.add(`${kind}/${name}`);
  }
  return name;
}

export function exportObjects(input: ExportInput): ExportedObjects {
  const { live } = input;
  const ctx: ExportContext = {
    input,
    owned: ownedBy(input.inventory),
    appRef: namer(live.apps, (a) => a.name),
    templateRef: namer(live.templates, (t) => t.name),
    skipped: [],
    ownedCount: 0,
    ownedNames: new Set(),
    refersToOwned: false,
    ownedRefs: new Set(),
    pkgName: new Map(),
    pkgWhyNot: new Map(),
  };
  const { packages, contentDirs } = exportPackages(ctx);
  const { flows, deployments } = exportFlows(ctx);
  const uploads = exportUploads(ctx);
  return {
    packages,
    flows,
    deployments,
    uploads,
    contentDirs,
    refersToOwned: ctx.refersToOwned,
    ownedRefs: [...ctx.ownedRefs].sort(),
    owned: ctx.ownedCount,
    skipped: ctx.skipped,
  };
}

/** Packages: every live one, in a flow or not. */
function exportPackages(ctx: ExportContext): { packages: ExportedManifest[]; contentDirs: string[] } {
  const { live, details, outInRoot } = ctx.input;
  const packages: ExportedManifest[] = [];
  const contentDirs: string[] = [];
  const contentPrefix = outInRoot ? `${outInRoot}/content/` : 'content/';
  const pkgNamer = uniqueNamer(ctx.owned.names('Package'));
  const adoptable = new Map<string, string>();
  for (const group of groupBy(live.packages, packageNaturalKey).values()) {
    const [newest, ...older] = newestFirst(group);
    if (newest) for (const p of older) adoptable.set(p.id, newest.id);
  }
  for (const p of live.packages) {
    const label = `${p.productName} ${p.productVersion}`;
    const ownName = ctx.owned.name('Package', p.id);
    if (ownName) {
      ctx.ownedCount++;
      ctx.ownedNames.add(`Package/${ownName}`);
      ctx.pkgName.set(p.id, ownName);
      continue;
    }
    const d = details.get(p.id);
    const reason = adoptable.has(p.id)
      ? 'a newer live package has the same name and version (or app, version and scope), and --adopt takes the newest'
      : (UNUSABLE_PACKAGE[p.state] ?? (d ? undefined : 'its details were not read'));
    const name = reason === undefined ? pkgNamer(`${p.productName}-${p.productVersion}`) : '';
    const custom = p.isCustom || !p.appId;
    const content = `${contentPrefix}${name}`;
    const spec = reason === undefined && d ? packageSpec(d, custom, content, ctx) : (reason ?? 'its details were not read');
    if (typeof spec === 'string') {
      skip(ctx, 'Package', p.id, label, spec);
      ctx.pkgWhyNot.set(p.id, 'its package is not exported');
      continue;
    }
    // The service cannot give back a custom package's original files, and a custom package needs
    // its content in git: the manifest points at a directory the operator fills before validating.
    if (custom) contentDirs.push(content);
    ctx.pkgName.set(p.id, name);
    packages.push({
      apiVersion: API_VERSION,
      kind: 'Package',
      metadata: { name, annotations: { 'packsync.dev/exported-from': p.id } },
      spec,
    });
  }
  return { packages, contentDirs };
}

/** The manifest spec of a package, or why it cannot be written. */
function packageSpec(d: V1PackageDetailsViewModel, custom: boolean, content: string, ctx: ExportContext): Record<string, unknown> | string {
  try {
    return custom ? { custom: customSpec(d, ctx.templateRef, content) } : { catalog: catalogSpec(d, ctx.appRef, ctx.templateRef) };
  } catch (e) {
    if (!(e instanceof NotExportable)) throw e;
    return e.message;
  }
}

/** Flows and their deployments. */
function exportFlows(ctx: ExportContext): { flows: ExportedManifest[]; deployments: ExportedManifest[] } {
  const { live } = ctx.input;
  const flows: ExportedManifest[] = [];
  const deployments: ExportedManifest[] = [];
  const flowNamer = uniqueNamer(ctx.owned.names('Flow'));
  const depNamer = uniqueNamer(ctx.owned.names('Deployment'));
  const packagesById = new Map(live.packages.map((p) => [p.id, p]));
  const liveFlows = live.flows.filter((f) => !f.deleted);
  const oldestByName = new Map([...groupBy(liveFlows, (f) => f.name)].map(([n, fs]) => [n, newestFirst(fs).at(-1)?.id]));
  for (const f of liveFlows) {
    let flowName = ctx.owned.name('Flow', f.id);
    if (flowName) {
      ctx.ownedCount++;
      ctx.ownedNames.add(`Flow/${flowName}`);
    } else {
      const pkgMissing =
        f.packageId && !ctx.pkgName.has(f.packageId) ? (ctx.pkgWhyNot.get(f.packageId) ?? 'its package is not live') : undefined;
      if (oldestByName.get(f.name) !== f.id)
        skip(ctx, 'Flow', f.id, f.name, 'an older live flow has the same name, and --adopt takes the oldest');
      else if (pkgMissing) skip(ctx, 'Flow', f.id, f.name, pkgMissing);
      else {
        flowName = flowNamer(f.name);
        flows.push({ apiVersion: API_VERSION, kind: 'Flow', metadata: { name: flowName }, spec: flowSpec(f, ctx) });
      }
    }
    for (const d of deploymentsToExport(ctx, f)) {
      const dep = exportDeployment(ctx, { flowName, flow: f.name, d, p: packagesById.get(d.packageId) });
      if (dep) deployments.push({ ...dep, metadata: { name: depNamer(dep.metadata.name) } });
    }
  }
  return { flows, deployments };
}

/**
 * A flow's deployments to write (or count as owned): one per package. A manifest finds its live
 * deployment by (flow, package), and the service allows several of one package in a flow; `--adopt`
 * takes the newest (a flow lists its deployments oldest first), so only that one is written, unless
 * packsync already owns one of them. The others are reported as skipped: a second manifest of the
 * same (flow, package) does not validate.
 */
function deploymentsToExport(ctx: ExportContext, f: LiveState['flows'][number]): LiveDeployment[] {
  const out: LiveDeployment[] = [];
  for (const group of groupBy(f.details?.deployments ?? [], (d) => d.packageId.toLowerCase()).values()) {
    const ownedOne = group.find((d) => ctx.owned.name('Deployment', d.id));
    const taken = ownedOne ?? group.at(-1);
    for (const d of group) {
      if (d === taken || ctx.owned.name('Deployment', d.id)) out.push(d);
      else {
        const why = ownedOne
          ? 'packsync already owns a deployment of the same flow and package'
          : 'a newer live deployment of the same flow and package exists, and --adopt takes the newest';
        skip(ctx, 'Deployment', d.id, `${f.name} / ${d.packageId}`, why);
      }
    }
  }
  return out;
}

function flowSpec(f: LiveState['flows'][number], ctx: ExportContext): Record<string, unknown> {
  const spec: Record<string, unknown> = { name: f.name };
  if (f.appId) spec.app = ctx.appRef(f.appId);
  const pn = f.packageId ? ctx.pkgName.get(f.packageId) : undefined;
  if (pn) spec.package = ref(ctx, 'Package', pn);
  if (f.patchGroupId) spec.patchGroup = f.patchGroupId;
  const scope = scopeName(f.scope);
  if (scope) spec.scope = scope;
  if (f.flags) spec.flags = flagNames(f.flags);
  if (f.supersedenceHistoryCount) spec.supersedenceHistoryCount = f.supersedenceHistoryCount;
  if (f.templateId) spec.scriptTemplate = ctx.templateRef(f.templateId);
  return spec;
}

type LiveDeployment = NonNullable<LiveState['flows'][number]['details']>['deployments'][number];

/** One deployment of a flow (its manifest name still to be made unique), or undefined when it is owned or skipped. */
function exportDeployment(
  ctx: ExportContext,
  o: { flowName: string | undefined; flow: string; d: LiveDeployment; p: V1PackageViewModel | undefined },
): ExportedManifest | undefined {
  const { d, p } = o;
  const label = `${o.flow} / ${d.packageId}`;
  if (ctx.owned.name('Deployment', d.id)) {
    ctx.ownedCount++;
    return undefined;
  }
  const packageName = ctx.pkgName.get(d.packageId);
  if (!o.flowName) return void skip(ctx, 'Deployment', d.id, label, 'its flow is not exported');
  if (!p || !packageName) return void skip(ctx, 'Deployment', d.id, label, ctx.pkgWhyNot.get(d.packageId) ?? 'its package is not live');
  const state = d.status === 'NotStarted' ? 'pending' : d.status === 'Stopped' ? 'stopped' : 'running';
  const spec: Record<string, unknown> = { flow: ref(ctx, 'Flow', o.flowName), package: ref(ctx, 'Package', packageName), state };
  if (d.version && d.version !== p.productVersion) spec.version = d.version;
  return { apiVersion: API_VERSION, kind: 'Deployment', metadata: { name: `${o.flowName}-${p.productVersion}` }, spec };
}

/** Tenant uploads: one manifest per (tenant, package); the planner adopts the newest task of it. */
function exportUploads(ctx: ExportContext): ExportedManifest[] {
  const { live } = ctx.input;
  const uploads: ExportedManifest[] = [];
  const uploadNamer = uniqueNamer(ctx.owned.names('TenantUpload'));
  const tenantRef = namer(live.tenants, (t) => t.defaultDomain);
  for (const t of live.tenants) {
    const tasks: V1TaskViewModel[] = live.uploads[t.id] ?? [];
    for (const [packageId, group] of groupBy(tasks, (x) => x.packageId)) {
      const [task] = newestFirst(group);
      if (!task) continue;
      const label = `${t.defaultDomain} / ${packageId}`;
      if (
        ctx.owned.upload(
          t.id,
          packageId,
          group.map((x) => x.id),
        )
      ) {
        ctx.ownedCount++;
        continue;
      }
      const packageName = ctx.pkgName.get(packageId);
      if (!packageName) skip(ctx, 'TenantUpload', task.id, label, ctx.pkgWhyNot.get(packageId) ?? 'its package is not live');
      else if (task.state === 'Error' || task.state === 'Canceled') {
        skip(ctx, 'TenantUpload', task.id, label, `its last upload task ended ${task.state}, and adopting it would upload again`);
      } else {
        const name = uploadNamer(`${packageName}-${t.defaultDomain.split('.')[0] ?? t.id}`);
        uploads.push({
          apiVersion: API_VERSION,
          kind: 'TenantUpload',
          metadata: { name },
          spec: { tenant: tenantRef(t.id), package: ref(ctx, 'Package', packageName) },
        });
      }
    }
  }
  return uploads;
}
