/**
 * Onboarding: turn what exists live (packages, flows, their deployments, tenant uploads) into
 * manifests that validate and that `apply --adopt` takes over without any API write, after which
 * `plan` has nothing to do. Objects the inventory already owns are not written again.
 *
 * A manifest finds its live object by identity (package: name + version, or app + version + scope;
 * flow: display name; deployment: flow + package; upload: tenant + package). When several live
 * objects share one identity, `--adopt` takes one of them (the newest package, the oldest flow), so
 * only that one is exported and the others are reported as skipped: a second manifest would adopt
 * the same object again.
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
  const { live, details } = input;
  const owned = ownedBy(input.inventory);
  const appRef = namer(live.apps, (a) => a.name);
  const templateRef = namer(live.templates, (t) => t.name);
  const skipped: SkippedObject[] = [];
  let ownedCount = 0;
  // Owned objects' manifest names, and whether any exported object refers to one of them.
  const ownedNames = new Set<string>();
  let refersToOwned = false;
  const ref = (kind: Kind, name: string): string => {
    if (ownedNames.has(`${kind}/${name}`)) refersToOwned = true;
    return name;
  };
  const contentPrefix = input.outInRoot ? `${input.outInRoot}/content/` : 'content/';
  const skip = (kind: Kind, id: string, label: string, reason: string): void => {
    skipped.push({ kind, id, label, reason });
  };

  // Packages: every live one, in a flow or not. pkgName: live id → manifest name (exported or owned).
  const pkgName = new Map<string, string>();
  const pkgWhyNot = new Map<string, string>();
  const packages: unknown[] = [];
  const contentDirs: string[] = [];
  const pkgNamer = uniqueNamer(owned.names('Package'));
  const adoptable = new Map<string, string>();
  for (const group of groupBy(live.packages, packageNaturalKey).values()) {
    const [newest, ...older] = newestFirst(group);
    if (newest) for (const p of older) adoptable.set(p.id, newest.id);
  }
  for (const p of live.packages) {
    const label = `${p.productName} ${p.productVersion}`;
    const ownName = owned.name('Package', p.id);
    if (ownName) {
      ownedCount++;
      ownedNames.add(`Package/${ownName}`);
      pkgName.set(p.id, ownName);
      continue;
    }
    const newer = adoptable.get(p.id);
    const d = details.get(p.id);
    const reason = newer
      ? 'a newer live package has the same name and version (or app, version and scope), and --adopt takes the newest'
      : (UNUSABLE_PACKAGE[p.state] ?? (d ? undefined : 'its details were not read'));
    if (reason !== undefined || !d) {
      skip('Package', p.id, label, reason ?? 'its details were not read');
      pkgWhyNot.set(p.id, 'its package is not exported');
      continue;
    }
    const name = pkgNamer(`${p.productName}-${p.productVersion}`);
    const custom = p.isCustom || !p.appId;
    const content = `${contentPrefix}${name}`;
    let spec: Record<string, unknown>;
    try {
      spec = custom ? { custom: customSpec(d, templateRef, content) } : { catalog: catalogSpec(d, appRef, templateRef) };
    } catch (e) {
      if (!(e instanceof NotExportable)) throw e;
      skip('Package', p.id, label, e.message);
      pkgWhyNot.set(p.id, 'its package is not exported');
      continue;
    }
    // The service cannot give back a custom package's original files, and a custom package needs
    // its content in git: the manifest points at a directory the operator fills before validating.
    if (custom) contentDirs.push(content);
    pkgName.set(p.id, name);
    packages.push({
      apiVersion: API_VERSION,
      kind: 'Package',
      metadata: { name, annotations: { 'packsync.dev/exported-from': p.id } },
      spec,
    });
  }

  // Flows and their deployments.
  const packagesById = new Map(live.packages.map((p) => [p.id, p]));
  const flows: unknown[] = [];
  const deployments: unknown[] = [];
  const flowNamer = uniqueNamer(owned.names('Flow'));
  const depNamer = uniqueNamer(owned.names('Deployment'));
  const liveFlows = live.flows.filter((f) => !f.deleted);
  const oldestByName = new Map([...groupBy(liveFlows, (f) => f.name)].map(([n, fs]) => [n, newestFirst(fs).at(-1)?.id]));
  for (const f of liveFlows) {
    let flowName = owned.name('Flow', f.id);
    if (flowName) {
      ownedCount++;
      ownedNames.add(`Flow/${flowName}`);
    } else {
      const oldest = oldestByName.get(f.name);
      const pkgMissing = f.packageId && !pkgName.has(f.packageId) ? (pkgWhyNot.get(f.packageId) ?? 'its package is not live') : undefined;
      if (oldest !== f.id) skip('Flow', f.id, f.name, 'an older live flow has the same name, and --adopt takes the oldest');
      else if (pkgMissing) skip('Flow', f.id, f.name, pkgMissing);
      else {
        flowName = flowNamer(f.name);
        const spec: Record<string, unknown> = { name: f.name };
        if (f.appId) spec.app = appRef(f.appId);
        const pn = f.packageId ? pkgName.get(f.packageId) : undefined;
        if (pn) spec.package = ref('Package', pn);
        if (f.patchGroupId) spec.patchGroup = f.patchGroupId;
        const scope = scopeName(f.scope);
        if (scope) spec.scope = scope;
        if (f.flags) spec.flags = flagNames(f.flags);
        if (f.supersedenceHistoryCount) spec.supersedenceHistoryCount = f.supersedenceHistoryCount;
        if (f.templateId) spec.scriptTemplate = templateRef(f.templateId);
        flows.push({ apiVersion: API_VERSION, kind: 'Flow', metadata: { name: flowName }, spec });
      }
    }
    for (const d of f.details?.deployments ?? []) {
      const label = `${f.name} / ${d.packageId}`;
      if (owned.name('Deployment', d.id)) {
        ownedCount++;
        continue;
      }
      const p = packagesById.get(d.packageId);
      const packageName = pkgName.get(d.packageId);
      if (!flowName) {
        skip('Deployment', d.id, label, 'its flow is not exported');
        continue;
      }
      if (!p || !packageName) {
        skip('Deployment', d.id, label, pkgWhyNot.get(d.packageId) ?? 'its package is not live');
        continue;
      }
      const state = d.status === 'NotStarted' ? 'pending' : d.status === 'Stopped' ? 'stopped' : 'running';
      const dspec: Record<string, unknown> = { flow: ref('Flow', flowName), package: ref('Package', packageName), state };
      if (d.version && d.version !== p.productVersion) dspec.version = d.version;
      deployments.push({
        apiVersion: API_VERSION,
        kind: 'Deployment',
        metadata: { name: depNamer(`${flowName}-${p.productVersion}`) },
        spec: dspec,
      });
    }
  }

  // Tenant uploads: one manifest per (tenant, package); the planner adopts the newest task of it.
  const uploads: unknown[] = [];
  const uploadNamer = uniqueNamer(owned.names('TenantUpload'));
  const tenantRef = namer(live.tenants, (t) => t.defaultDomain);
  for (const t of live.tenants) {
    const tasks: V1TaskViewModel[] = live.uploads[t.id] ?? [];
    for (const [packageId, group] of groupBy(tasks, (x) => x.packageId)) {
      const [task] = newestFirst(group);
      if (!task) continue;
      const label = `${t.defaultDomain} / ${packageId}`;
      if (
        owned.upload(
          t.id,
          packageId,
          group.map((x) => x.id),
        )
      ) {
        ownedCount++;
        continue;
      }
      const packageName = pkgName.get(packageId);
      if (!packageName) skip('TenantUpload', task.id, label, pkgWhyNot.get(packageId) ?? 'its package is not live');
      else if (task.state === 'Error' || task.state === 'Canceled') {
        skip('TenantUpload', task.id, label, `its last upload task ended ${task.state}, and adopting it would upload again`);
      } else {
        const name = uploadNamer(`${packageName}-${t.defaultDomain.split('.')[0] ?? t.id}`);
        uploads.push({
          apiVersion: API_VERSION,
          kind: 'TenantUpload',
          metadata: { name },
          spec: { tenant: tenantRef(t.id), package: ref('Package', packageName) },
        });
      }
    }
  }

  const docs = (note: string, xs: unknown[]): string => HEADER + note + xs.map((x) => stringify(x, { lineWidth: 0 })).join('---\n');
  const files: Record<string, string> = {};
  if (packages.length) files['packages.yaml'] = docs(PACKAGES_NOTE, packages);
  if (flows.length) files['flows.yaml'] = docs('', flows);
  if (deployments.length) files['deployments.yaml'] = docs('', deployments);
  if (uploads.length) files['tenant-uploads.yaml'] = docs(UPLOADS_NOTE, uploads);
  return {
    files,
    contentDirs,
    refersToOwned,
    counts: { packages: packages.length, flows: flows.length, deployments: deployments.length, tenantUploads: uploads.length },
    owned: ownedCount,
    skipped,
  };
}
