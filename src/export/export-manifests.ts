/**
 * Onboarding: turn what exists live (flows, their deployments, the packages they use) into
 * manifests that validate and that `plan --adopt` takes over without any API write.
 */
import { stringify } from 'yaml';
import { FLOW_FLAGS, INSTALLER_SCOPE } from '../api/wire-types.js';
import type { V1PackageViewModel } from '../api/wire-types.js';
import type { LiveState } from '../live/types.js';
import { API_VERSION } from '../manifests/model.js';
import type { FlowFlagName } from '../api/wire-types.js';

export interface ExportedFiles {
  /** File name → YAML text. */
  files: Record<string, string>;
  /** Content directories (relative) that custom packages point at; the operator fills them. */
  contentDirs: string[];
  counts: { packages: number; flows: number; deployments: number };
}

export function slug(s: string): string {
  const out = s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 120);
  return out || 'unnamed';
}

function uniqueNamer(): (base: string) => string {
  const used = new Set<string>();
  return (base) => {
    let name = slug(base);
    for (let i = 2; used.has(name); i++) name = `${slug(base)}-${i}`;
    used.add(name);
    return name;
  };
}

function flagNames(mask: number): FlowFlagName[] {
  return (Object.keys(FLOW_FLAGS) as FlowFlagName[]).filter((k) => (mask & FLOW_FLAGS[k]) !== 0);
}

function scopeName(n: number): 'machine' | 'user' | undefined {
  return n === INSTALLER_SCOPE.user ? 'user' : n === INSTALLER_SCOPE.machine ? 'machine' : undefined;
}

export function exportManifests(live: LiveState): ExportedFiles {
  const appName = new Map(live.apps.map((a) => [a.id, a.name]));
  const appCount = new Map<string, number>();
  for (const a of live.apps) appCount.set(a.name.toLowerCase(), (appCount.get(a.name.toLowerCase()) ?? 0) + 1);
  const appRef = (id: string): string => {
    const n = appName.get(id);
    return n && appCount.get(n.toLowerCase()) === 1 ? n : id;
  };
  const templateName = new Map(live.templates.map((t) => [t.id, t.name]));
  const pkgById = new Map(live.packages.map((p) => [p.id, p]));
  const pkgNames = new Map<string, string>();
  const nameFor = uniqueNamer();
  const packages: unknown[] = [];
  const contentDirs: string[] = [];
  const usePackage = (p: V1PackageViewModel): string => {
    const known = pkgNames.get(p.id);
    if (known) return known;
    const name = nameFor(`${p.productName}-${p.productVersion}`);
    pkgNames.set(p.id, name);
    // The service cannot give back a custom package's original files, and a custom package needs
    // its content in git: the manifest points at a directory the operator fills before validating.
    if (p.isCustom || !p.appId) contentDirs.push(`content/${name}`);
    const spec: Record<string, unknown> = p.isCustom || !p.appId
      ? { custom: { name: p.productName, publisher: p.manufacturer, version: p.productVersion, sourceType: 'msi', content: `content/${name}` } }
      : { catalog: { app: appRef(p.appId), version: p.productVersion, scope: p.userScope && !p.machineScope ? 'user' : 'machine' } };
    packages.push({ apiVersion: API_VERSION, kind: 'Package', metadata: { name, annotations: { 'packsync.dev/exported-from': p.id } }, spec });
    return name;
  };
  const flows: unknown[] = [];
  const deployments: unknown[] = [];
  const flowNamer = uniqueNamer();
  const depNamer = uniqueNamer();
  for (const f of live.flows) {
    if (f.deleted) continue;
    const name = flowNamer(f.name);
    const spec: Record<string, unknown> = { name: f.name };
    if (f.appId) spec.app = appRef(f.appId);
    const fp = f.packageId ? pkgById.get(f.packageId) : undefined;
    if (fp) spec.package = usePackage(fp);
    if (f.patchGroupId) spec.patchGroup = f.patchGroupId;
    const scope = scopeName(f.scope);
    if (scope) spec.scope = scope;
    if (f.flags) spec.flags = flagNames(f.flags);
    if (f.supersedenceHistoryCount) spec.supersedenceHistoryCount = f.supersedenceHistoryCount;
    if (f.templateId) spec.scriptTemplate = templateName.get(f.templateId) ?? f.templateId;
    flows.push({ apiVersion: API_VERSION, kind: 'Flow', metadata: { name }, spec });
    for (const d of f.details?.deployments ?? []) {
      const p = pkgById.get(d.packageId);
      if (!p) continue;
      const state = d.status === 'NotStarted' ? 'pending' : d.status === 'Stopped' ? 'stopped' : 'running';
      const dspec: Record<string, unknown> = { flow: name, package: usePackage(p), state };
      if (d.version && d.version !== p.productVersion) dspec.version = d.version;
      deployments.push({ apiVersion: API_VERSION, kind: 'Deployment', metadata: { name: depNamer(`${name}-${p.productVersion}`) }, spec: dspec });
    }
  }
  const header = '# yaml-language-server: $schema=https://packsync.dev/schemas/v1/packsync.json\n# Exported by `packsync export`: review, commit, then `packsync plan --adopt`.\n';
  const docs = (xs: unknown[]): string => header + xs.map((x) => stringify(x, { lineWidth: 0 })).join('---\n');
  const files: Record<string, string> = {};
  if (packages.length) files['packages.yaml'] = docs(packages);
  if (flows.length) files['flows.yaml'] = docs(flows);
  if (deployments.length) files['deployments.yaml'] = docs(deployments);
  return { files, contentDirs, counts: { packages: packages.length, flows: flows.length, deployments: deployments.length } };
}
