/**
 * `packsync export --as-baseline NAME` (docs/baselines.md "Moving an account to a baseline"): the
 * exported catalog flows, each with its one deployment and catalog package, are folded into one
 * Baseline whose expansion is exactly those objects, so `apply --adopt` takes them over without
 * an API write. A ring is a patch group; each setting is written once at the widest layer where
 * it holds (defaults, the app entry, a ring's override), or else per app and ring. What cannot be
 * expressed (a flow with several deployments, a flow for a custom package, …) stays a plain
 * manifest beside the baseline, with its reason.
 */
import { API_VERSION } from '../manifests/model.js';
import { appSlug, generatedName, nameSlug } from '../manifests/kinds/baseline-spec.js';
import { DEFAULT_FLOW_NAME, flowName } from '../manifests/kinds/baseline.js';
import type { ExportedManifest, ExportedObjects } from './export-manifests.js';

export interface BaselineFold {
  /** What stays plain, with references to folded packages renamed to the baseline's. */
  objects: ExportedObjects;
  /** The Baseline manifest; undefined when no flow could be folded. */
  baseline?: Record<string, unknown>;
  folded: { apps: number; rings: number; flows: number; packages: number };
  /** Exported flows written as plain manifests instead, with why. */
  kept: { label: string; reason: string }[];
}

/** One app in one ring: the exported flow, its deployment and its package. */
interface Cell {
  app: string;
  patchGroup: string;
  flow: ExportedManifest;
  deployment: ExportedManifest;
  pkg: ExportedManifest;
  ring: number;
  values: Record<string, unknown>;
}

const FLOW_KEYS = new Set(['name', 'app', 'patchGroup', 'scope', 'flags', 'supersedenceHistoryCount', 'scriptTemplate']);
const DEPLOYMENT_KEYS = new Set(['flow', 'package', 'state']);
const CATALOG_KEYS = new Set(['app', 'version', 'scope', 'scriptTemplate']);
/** Settings in the order they are written. */
const FIELDS = ['version', 'scope', 'scriptTemplate', 'flags', 'supersedenceHistoryCount', 'state', 'flowName'] as const;
const RING_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function foldIntoBaseline(o: ExportedObjects, name: string): BaselineFold {
  const kept: BaselineFold['kept'] = [];
  const cells = foldable(o, kept);
  if (cells.length === 0) return { objects: o, folded: { apps: 0, rings: 0, flows: 0, packages: 0 }, kept };
  const rings = ringNames(cells);
  // Apps by name, for a reader; rings in the order the service lists their first flow.
  const apps = [...new Set(cells.map((c) => c.app))].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
  const slugs = appSlugs(apps);
  for (const c of cells) c.values = settingsOf(c, rings[c.ring]!);
  const spec = layered(cells, apps, rings, slugs);
  const baseline = { apiVersion: API_VERSION, kind: 'Baseline', metadata: { name }, spec };
  const renamed = packageNames(cells, name, slugs, rings);
  const foldedFlows = new Set(cells.map((c) => c.flow));
  const foldedDeployments = new Set(cells.map((c) => c.deployment));
  const rename = (m: ExportedManifest): ExportedManifest => {
    const to = typeof m.spec.package === 'string' ? renamed.get(m.spec.package) : undefined;
    return to === undefined ? m : { ...m, spec: { ...m.spec, package: to } };
  };
  const objects: ExportedObjects = {
    ...o,
    packages: o.packages.filter((p) => !renamed.has(p.metadata.name)),
    flows: o.flows.filter((f) => !foldedFlows.has(f)).map(rename),
    deployments: o.deployments.filter((d) => !foldedDeployments.has(d)).map(rename),
    uploads: o.uploads.map(rename),
  };
  return { objects, baseline, folded: { apps: apps.length, rings: rings.length, flows: cells.length, packages: renamed.size }, kept };
}

/** The exported flows a baseline can express, one per app and patch group; the others in `kept`. */
function foldable(o: ExportedObjects, kept: BaselineFold['kept']): Cell[] {
  const packages = new Map(o.packages.map((p) => [p.metadata.name, p]));
  const deployments = new Map<string, ExportedManifest[]>();
  for (const d of o.deployments) {
    const flow = String(d.spec.flow);
    deployments.set(flow, [...(deployments.get(flow) ?? []), d]);
  }
  const cells: Cell[] = [];
  const taken = new Set<string>();
  const groups: string[] = [];
  for (const flow of o.flows) {
    const deps = deployments.get(flow.metadata.name) ?? [];
    const reason =
      whyNot(flow, deps, packages) ?? (taken.has(slot(flow)) ? 'another flow of its app uses the same patch group' : undefined);
    if (reason !== undefined) {
      kept.push({ label: String(flow.spec.name), reason });
      continue;
    }
    taken.add(slot(flow));
    const patchGroup = String(flow.spec.patchGroup);
    if (!groups.includes(patchGroup)) groups.push(patchGroup);
    const [deployment] = deps as [ExportedManifest];
    const pkg = packages.get(String(deployment.spec.package))!;
    cells.push({ app: String(flow.spec.app), patchGroup, flow, deployment, pkg, ring: groups.indexOf(patchGroup), values: {} });
  }
  return cells;
}

const slot = (flow: ExportedManifest): string => `${String(flow.spec.app)}\u0000${String(flow.spec.patchGroup)}`;
const keysIn = (obj: Record<string, unknown>, allowed: Set<string>): boolean => Object.keys(obj).every((k) => allowed.has(k));

function whyNot(flow: ExportedManifest, deps: ExportedManifest[], packages: Map<string, ExportedManifest>): string | undefined {
  const f = flow.spec;
  if (f.package !== undefined) return 'it deploys a fixed package rather than its app';
  if (typeof f.app !== 'string' || typeof f.patchGroup !== 'string' || !keysIn(f, FLOW_KEYS))
    return 'it is not a catalog app flow on a patch group';
  if (`${String(f.name)}${f.app}`.includes('{')) return 'its name holds `{`, which a baseline reads as a placeholder';
  if (deps.length !== 1) return `it has ${deps.length} deployments, and a baseline declares one per flow`;
  const d = deps[0]!.spec;
  if (!keysIn(d, DEPLOYMENT_KEYS)) return 'its deployment pins a version of its own';
  const catalog = packages.get(String(d.package))?.spec.catalog as Record<string, unknown> | undefined;
  if (!catalog || !keysIn(catalog, CATALOG_KEYS) || catalog.app !== f.app)
    return "its deployment's package is not an exported catalog package of its app";
  if (catalog.scope !== f.scope || catalog.scriptTemplate !== f.scriptTemplate)
    return 'its scope or script template differs from its package’s, and a baseline sets both with one value';
  return undefined;
}

/**
 * A name per patch group, from what most of its flows' names add to their app's (`7-Zip (pilot)` →
 * `pilot`, `7-Zip - Early adopters` → `early-adopters`), else `ring-N`. Only readability rides on
 * it: each flow's live name is kept by `flowName` whatever the ring is called.
 */
function ringNames(cells: Cell[]): string[] {
  const count = Math.max(...cells.map((c) => c.ring)) + 1;
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const mine = cells.filter((c) => c.ring === i);
    const rests = mine.map(restOf).filter((r) => r !== undefined);
    const rest = mostCommon(rests) as string | undefined;
    // Shared by half the ring's flows at least, and by two unless the ring has one flow.
    const shared = rests.filter((r) => r === rest).length;
    const named = rest !== undefined && shared * 2 >= mine.length && (shared >= 2 || mine.length === 1);
    const base = named ? ringSlug(rest.replace(/^\s*\((.*)\)\s*$/, '$1')) : '';
    let n = RING_NAME.test(base) ? base : `ring-${i + 1}`;
    for (let k = 2; names.includes(n); k++) n = `${base || 'ring'}-${k}`;
    names.push(n);
  }
  return names;
}

function restOf(c: Cell): string | undefined {
  const live = String(c.flow.spec.name);
  return live.startsWith(c.app) ? live.slice(c.app.length) : undefined;
}

/** A ring name (at most 40 characters, schemas/v1/baseline.json) by the object-name rule; '' when nothing is left. */
function ringSlug(s: string): string {
  return nameSlug(s).slice(0, 40).replace(/-+$/, '');
}

/** Each app's part of object names; a second app with the same one gets `-2` (written as `name:`). */
function appSlugs(apps: string[]): Map<string, { slug: string; explicit: boolean }> {
  const out = new Map<string, { slug: string; explicit: boolean }>();
  const used = new Set<string>();
  for (const app of apps) {
    const natural = appSlug(app);
    let slug = natural;
    for (let k = 2; used.has(slug); k++) slug = `${natural}-${k}`;
    used.add(slug);
    out.set(app, { slug, explicit: slug !== natural });
  }
  return out;
}

function settingsOf(c: Cell, ring: string): Record<string, unknown> {
  const catalog = c.pkg.spec.catalog as Record<string, unknown>;
  const live = String(c.flow.spec.name);
  const rest = restOf(c);
  // The default name gives it; else `{app}` and what the name adds, else the name itself.
  const template = live === flowName(DEFAULT_FLOW_NAME, c.app, ring) ? undefined : rest !== undefined ? `{app}${rest}` : live;
  return {
    version: catalog.version,
    scope: catalog.scope,
    scriptTemplate: catalog.scriptTemplate,
    flags: c.flow.spec.flags,
    supersedenceHistoryCount: c.flow.spec.supersedenceHistoryCount,
    state: c.deployment.spec.state,
    flowName: template,
  };
}

interface Spec {
  rings: Record<string, string>;
  defaults?: Record<string, unknown>;
  apps: Record<string, unknown>[];
  overrides?: Record<string, unknown>[];
}

/** Writes each setting once at the widest layer where one value holds for all it covers. */
function layered(cells: Cell[], apps: string[], rings: string[], slugs: Map<string, { slug: string; explicit: boolean }>): Spec {
  const defaults: Record<string, unknown> = {};
  const entries = new Map<string, Record<string, unknown>>();
  for (const app of apps) {
    const mine = cells.filter((c) => c.app === app);
    const entry: Record<string, unknown> = { app };
    if (slugs.get(app)!.explicit) entry.name = slugs.get(app)!.slug;
    if (mine.length < rings.length) entry.rings = mine.map((c) => rings[c.ring]!).sort((a, b) => rings.indexOf(a) - rings.indexOf(b));
    entries.set(app, entry);
  }
  const ringOverrides = new Map<number, Record<string, unknown>>();
  const cellOverrides = new Map<Cell, Record<string, unknown>>();
  for (const field of FIELDS) {
    const value = (c: Cell): unknown => c.values[field];
    const same = (xs: Cell[]): boolean => xs.every((c) => equal(value(c), value(xs[0]!)));
    if (field === 'version') {
      // Each app entry says its version (the most common of its rings); a ring that differs overrides it.
      for (const app of apps) {
        const mine = cells.filter((c) => c.app === app);
        const base = mostCommon(mine.map(value));
        set(entries.get(app)!, field, base);
        for (const c of mine)
          if (!equal(value(c), base)) set(at(cellOverrides, c, { apps: [c.app], rings: [rings[c.ring]] }), field, value(c));
      }
    } else if (same(cells)) {
      if (value(cells[0]!) !== undefined) defaults[field] = value(cells[0]!);
    } else if (apps.every((a) => same(cells.filter((c) => c.app === a)))) {
      for (const app of apps) set(entries.get(app)!, field, value(cells.find((c) => c.app === app)!));
    } else if (rings.every((_, r) => same(cells.filter((c) => c.ring === r)))) {
      rings.forEach((_, r) => {
        const first = cells.find((c) => c.ring === r);
        if (first && value(first) !== undefined) set(at(ringOverrides, r, { rings: [rings[r]] }), field, value(first));
      });
    } else {
      // Defaults cannot unset a field, so a field some flows leave unset has no default.
      const base = cells.some((c) => value(c) === undefined) ? undefined : mostCommon(cells.map(value));
      if (base !== undefined) defaults[field] = base;
      for (const c of cells)
        if (!equal(value(c), base)) set(at(cellOverrides, c, { apps: [c.app], rings: [rings[c.ring]] }), field, value(c));
    }
  }
  // Keys in the order a person writes them: rings, defaults, apps, overrides.
  const spec: Spec = {
    rings: Object.fromEntries(rings.map((r, i) => [r, cells.find((c) => c.ring === i)!.patchGroup])),
    ...(Object.keys(defaults).length > 0 ? { defaults } : {}),
    apps: [...entries.values()],
  };
  const overrides = [...ringOverrides.values(), ...cellOverrides.values()];
  if (overrides.length > 0) spec.overrides = overrides;
  return spec;
}

function set(target: Record<string, unknown>, field: string, v: unknown): void {
  if (v !== undefined) target[field] = v;
}

function at<K>(m: Map<K, Record<string, unknown>>, k: K, init: Record<string, unknown>): Record<string, unknown> {
  let v = m.get(k);
  if (!v) m.set(k, (v = init));
  return v;
}

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function mostCommon(xs: unknown[]): unknown {
  const count = new Map<string, { n: number; v: unknown }>();
  for (const x of xs) {
    const k = JSON.stringify(x);
    count.set(k, { n: (count.get(k)?.n ?? 0) + 1, v: x });
  }
  return [...count.values()].sort((a, b) => b.n - a.n)[0]?.v;
}

/**
 * The name the baseline gives each folded package (the expansion's rule: the app's first ring in
 * ring order gets `<baseline>.<app>`, a ring whose package settings differ `<baseline>.<app>.<ring>`),
 * by the plain name it had.
 */
function packageNames(cells: Cell[], baseline: string, slugs: Map<string, { slug: string }>, rings: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const byApp = new Map<string, Cell[]>();
  for (const c of cells) byApp.set(c.app, [...(byApp.get(c.app) ?? []), c]);
  for (const [app, mine] of byApp) {
    const slug = slugs.get(app)!.slug;
    let first = true;
    for (const c of [...mine].sort((a, b) => a.ring - b.ring)) {
      if (out.has(c.pkg.metadata.name)) continue;
      out.set(c.pkg.metadata.name, first ? generatedName(baseline, slug) : generatedName(baseline, slug, rings[c.ring]));
      first = false;
    }
  }
  return out;
}
