/**
 * `kind: Baseline` (docs/baselines.md): one app set rolled through rings. It is never planned
 * itself; it expands into a Package per app (per distinct package settings), and a Flow and a
 * Deployment per app and ring, with stable names `<baseline>.<app>.<ring>`, which are then
 * validated, planned, applied, moved and pruned like hand-written manifests.
 */
import baselineSchema from '../../../schemas/v1/baseline.json' with { type: 'json' };
import type { AuthoredKindSpec, AuthoredRecord, ExpandContext, Expansion } from './types.js';
import { generatedDocument } from '../generated-document.js';
import type { GeneratedDocument, Origin } from '../generated-document.js';
import { API_VERSION } from '../model.js';
import type { BaselineException, SourcePosition } from '../model.js';
import type { Segment } from '../yaml-types.js';
import { exceptionSlot, resolveSettings } from './baseline-layers.js';
import type { ActiveExceptions, Resolved } from './baseline-layers.js';
import {
  appIndex,
  appSlug,
  BaselineProblems,
  checkReferences,
  daysLeft,
  DEFAULT_MAX_REMOVED,
  exceptionFields,
  expiryEnd,
  generatedName,
  ringsOf,
} from './baseline-spec.js';
import type { BaselineSpec } from './baseline-spec.js';
import { collisions } from './baseline-collisions.js';

export const BASELINE: AuthoredKindSpec<'Baseline'> = {
  kind: 'Baseline',
  plural: 'Baselines',
  schema: baselineSchema,
  expandsInto: ['Package', 'Flow', 'Deployment'],
  expand: expandBaseline,
};

/** Settings routed to each generated object (`update` stays in the baseline for `packsync update`). */
const PACKAGE_FIELDS: Record<string, string> = { version: 'version', scope: 'scope', scriptTemplate: 'scriptTemplate' };
const FLOW_FIELDS = ['scope', 'flags', 'supersedenceHistoryCount', 'scriptTemplate', 'suspend', 'windows'];
const DEPLOYMENT_FIELDS = ['state', 'wave', 'promotion', 'suspend'];
export const DEFAULT_FLOW_NAME = '{app} ({ring})';

function expandBaseline(r: AuthoredRecord, ctx: ExpandContext): Expansion {
  const spec = (r.data.spec ?? {}) as unknown as BaselineSpec;
  const name = r.name ?? 'baseline';
  const problems = new BaselineProblems(r);
  checkReferences(spec, problems);
  const source = (at: Segment[]): SourcePosition => ({ file: r.doc.file, ...r.doc.locate(at, 'value') });
  const { active, listed } = exceptionsAt(spec, ctx.now, source);
  if (problems.list.length > 0) return { documents: [], problems: problems.list, baselines: [] };

  const documents: GeneratedDocument[] = [];
  const seen = new Set<string>();
  let flows = 0;
  spec.apps.forEach((app, i) => {
    const slug = app.name ?? appSlug(app.app);
    const appAt: Origin = { at: ['spec', 'apps', i, 'app'], layer: `apps[${i}]` };
    const packages = new Map<string, { name: string; rings: string[]; origins: Map<string, Origin> }>();
    for (const ring of ringsOf(spec, app)) {
      const exception = active.get(exceptionSlot(i, ring)) ?? active.get(exceptionSlot(i, '*'));
      if (exception?.entry.action === 'omit') continue;
      const resolved = resolveSettings(spec, { app: i, ring, ...(exception ? { exception } : {}) }, problems, seen);
      const objects = objectsFor({ r, name, slug, app: app.app, appAt, ring, resolved, packages });
      documents.push(...objects);
      flows++;
    }
  });
  const kept = collisions(r, documents, ctx.handWritten, problems);
  const baseline = {
    name,
    source: { file: r.doc.file, ...r.doc.start },
    apps: spec.apps.length,
    rings: Object.keys(spec.rings).length,
    overrides: spec.overrides?.length ?? 0,
    exceptions: listed,
    flows,
    deployments: flows,
    maxRemoved: spec.maxRemoved ?? DEFAULT_MAX_REMOVED,
    keys: documents.map((d) => `${(d.value as { kind: string }).kind}/${(d.value as { metadata: { name: string } }).metadata.name}`),
  };
  return { documents: kept, problems: problems.list, baselines: [baseline] };
}

/** Exceptions that apply at `now` by (app, ring), and every exception as the summary lists it. */
function exceptionsAt(
  spec: BaselineSpec,
  now: Date,
  source: (at: Segment[]) => SourcePosition,
): { active: ActiveExceptions; listed: BaselineException[] } {
  const active: ActiveExceptions = new Map();
  const listed: BaselineException[] = [];
  spec.exceptions?.forEach((e, index) => {
    const end = e.expires === undefined ? undefined : expiryEnd(e.expires);
    const expired = end !== undefined && now.getTime() >= end;
    const i = appIndex(spec, e.app);
    if (!expired && i >= 0) active.set(exceptionSlot(i, e.ring ?? '*'), { index, entry: e });
    listed.push({
      ...exceptionFields(e),
      expired,
      ...(e.expires !== undefined && !expired && end !== undefined ? { daysLeft: daysLeft(e.expires, now) } : {}),
      source: source(['spec', 'exceptions', index]),
    });
  });
  return { active, listed };
}

interface ObjectsInput {
  r: AuthoredRecord;
  name: string;
  slug: string;
  app: string;
  appAt: Origin;
  ring: string;
  resolved: Resolved;
  /** Package settings (JSON) → the package already generated for them (for this app) and its rings. */
  packages: Map<string, { name: string; rings: string[]; origins: Map<string, Origin> }>;
}

function objectsFor(o: ObjectsInput): GeneratedDocument[] {
  const { values } = o.resolved;
  const key = generatedName(o.name, o.slug, o.ring);
  const origins = new Map<string, Origin>([['metadata.name', o.appAt]]);
  const from = (field: string, path: string): void => {
    const origin = o.resolved.origins.get(field);
    if (origin) origins.set(path, origin);
  };
  const out: GeneratedDocument[] = [];

  const catalog: Record<string, unknown> = { app: o.app };
  for (const [field, target] of Object.entries(PACKAGE_FIELDS)) if (values[field] !== undefined) catalog[target] = values[field];
  const settings = JSON.stringify(catalog);
  let pkg = o.packages.get(settings)?.name;
  const about = { by: o.name, app: o.app, name: o.slug, rings: [o.ring] };
  if (pkg === undefined) {
    // The first ring's package is `<baseline>.<app>`; a ring whose package settings differ gets its own.
    pkg = o.packages.size === 0 ? generatedName(o.name, o.slug) : key;
    const pkgRings = [o.ring];
    const pkgOrigins = new Map(origins);
    o.packages.set(settings, { name: pkg, rings: pkgRings, origins: pkgOrigins });
    for (const field of Object.keys(PACKAGE_FIELDS)) {
      const origin = o.resolved.origins.get(field);
      if (origin) pkgOrigins.set(`spec.catalog.${PACKAGE_FIELDS[field]!}`, origin);
    }
    // The version policy rides on the package (as on a hand-written one) for `packsync update`, which
    // bumps the `version` of the app entry it came from; it never splits packages, and never reaches the API.
    const policy = values.update === undefined ? {} : { update: values.update };
    const policyOrigin = o.resolved.origins.get('update');
    if (policyOrigin) pkgOrigins.set('spec.catalog.update', policyOrigin);
    out.push(
      doc(o.r, { kind: 'Package', name: pkg, spec: { catalog: { ...catalog, ...policy } } }, pkgOrigins, o.appAt, {
        ...about,
        rings: pkgRings,
      }),
    );
  } else {
    const shared = o.packages.get(settings)!;
    shared.rings.push(o.ring);
    // A ring that takes the version from the app entry makes the entry the shared package's version
    // source, whatever the first ring pinned: `packsync update` bumps that entry (the pinned ring then
    // keeps its own package), whichever ring comes first.
    const version = o.resolved.origins.get('version');
    if (version && version.at[1] === 'apps' && version.at[3] === 'version') shared.origins.set('spec.catalog.version', version);
  }

  const flow: Record<string, unknown> = { name: flowName(values.flowName, o.app, o.ring), app: o.app, patchGroup: undefined };
  from('flowName', 'spec.name');
  origins.set('spec.patchGroup', { at: ['spec', 'rings', o.ring], layer: 'rings' });
  flow.patchGroup = (o.r.data.spec as { rings: Record<string, string> }).rings[o.ring];
  for (const field of FLOW_FIELDS) {
    if (values[field] === undefined) continue;
    flow[field] = values[field];
    from(field, `spec.${field}`);
  }
  out.push(doc(o.r, { kind: 'Flow', name: key, spec: flow }, origins, o.appAt, about));

  const depOrigins = new Map<string, Origin>([['metadata.name', o.appAt]]);
  const deployment: Record<string, unknown> = { flow: key, package: pkg };
  for (const field of DEPLOYMENT_FIELDS) {
    if (values[field] === undefined) continue;
    deployment[field] = values[field];
    const origin = o.resolved.origins.get(field);
    if (origin) depOrigins.set(`spec.${field}`, origin);
  }
  out.push(doc(o.r, { kind: 'Deployment', name: key, spec: deployment }, depOrigins, o.appAt, about));
  return out;
}

/** The generated flow's live name: `flowName` with `{app}` and `{ring}` filled in (default `{app} ({ring})`). */
export function flowName(template: unknown, app: string, ring: string): string {
  const t = typeof template === 'string' ? template : DEFAULT_FLOW_NAME;
  return t.replaceAll('{app}', app).replaceAll('{ring}', ring);
}

function doc(
  r: AuthoredRecord,
  o: { kind: string; name: string; spec: Record<string, unknown> },
  origins: Map<string, Origin>,
  fallback: Origin,
  about: GeneratedDocument['about'],
): GeneratedDocument {
  const value = { apiVersion: API_VERSION, kind: o.kind, metadata: { name: o.name }, spec: o.spec };
  return generatedDocument(r.doc, value, origins, fallback, about);
}
