/**
 * Packages. The API has no package update or delete: a changed spec or content digest gets a new
 * live package; the old one stays live and in the state as superseded, so a revert reuses it.
 */
import type { V1PackageViewModel } from '../../api/wire/index.js';
import type { PackageManifest } from '../../manifests/model.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { PlanContext, RefState } from '../context.js';
import { hashValue } from '../hash.js';
import { adoptReason, adoptRecord, decideUnowned, newest, otherHolder, planOwnedElsewhere, planSameIdentity } from '../ownership.js';
import { importedByService } from './service-driven.js';
import { catalogTarget, customTarget, naturalKeyOf, packageFields, usable } from './package-targets.js';
import type { CatalogTarget, CustomTarget } from './package-targets.js';
import type { ObjectPlan, RecordSpec } from '../types.js';
import { OP } from '../ops.js';
import { blockedRef, planResolveError } from '../not-planned.js';
import { markMoved, moveActions, restoreActions, supersedeAction } from '../state-writes.js';

const IN_FLIGHT = new Set(['Pending', 'Running', 'Processing']);

type PackageContent = NonNullable<PackageManifest['content']>;

/** What the plan knows of one package manifest once its target resolves. */
interface PackageCase {
  m: PackageManifest;
  key: string;
  target: CatalogTarget | CustomTarget;
  record: RecordSpec;
  /** The state entry of this key (after a rename is folded in), if any. */
  entry: InventoryEntry | undefined;
  /** Live packages of the target's natural key. */
  matches: V1PackageViewModel[];
}

/** A package to create or import, and how the plan words it. */
interface NewPackage {
  change: ObjectPlan['change'];
  reasons: string[];
  fields: ObjectPlan['fields'];
  /** Actions that must run first (keeping the previous package as superseded). */
  first: string[];
}

export function planPackage(ctx: PlanContext, m: PackageManifest): void {
  const key = `Package/${m.metadata.name}`;
  const entry = ctx.entry(key);
  let target: CatalogTarget | CustomTarget;
  try {
    target = m.spec.catalog ? catalogTarget(ctx, m) : customTarget(ctx, m);
  } catch (e) {
    planResolveError(ctx, m, key, e, ctx.packageRefs);
    return;
  }
  const specHash = hashValue({ spec: target.spec, content: m.content?.digest ?? null });
  const record: RecordSpec = { specHash, spec: target.spec };
  if (m.metadata.annotations) record.annotations = m.metadata.annotations;
  const natural = naturalKeyOf(target);
  const twin = ctx.claimIdentity(`Package|${natural}`, key);
  if (twin !== undefined) {
    planSameIdentity(ctx, m, key, { first: twin, what: `one live package (${describeTarget(target)})` }, ctx.packageRefs);
    return;
  }
  const matches = ctx.packagesByNaturalKey.get(natural) ?? [];
  if (!entry) {
    // A rename: the live package is owned under a key that left git (docs/reconcile.md).
    for (const p of matches) {
      const mv = ctx.claimMove(key, p.id);
      if (!mv) continue;
      const moved = moveActions(ctx, key, mv.from, mv.entry);
      planPackageEntry(ctx, { m, key, target, record, entry: moved.entry, matches });
      markMoved(ctx, key, mv.from, moved.actions);
      return;
    }
  }
  planPackageEntry(ctx, { m, key, target, record, entry, matches });
}

/** `7-Zip 24.08, machine scope` or `Dice 1.1`: the identity two manifests share, in words. */
function describeTarget(t: CatalogTarget | CustomTarget): string {
  if (t.kind === 'custom') return `${t.body.name} ${t.body.version ?? ''}`.trim();
  const scope = t.query.scope === 2 ? 'user' : t.query.scope === 1 ? 'machine' : 'machine and user';
  return `catalog app ${t.appName} ${t.version}, ${scope} scope`;
}

function planPackageEntry(ctx: PlanContext, c: PackageCase): void {
  const { m, key, record, entry, matches } = c;
  const live = entry ? ctx.packagesById.get(entry.id) : undefined;
  // A pending intent means a create may have taken effect before a crash: find it before anything else.
  const unowned = decideUnowned(ctx, key, matches, newest, entry !== undefined);
  if (unowned.kind === 'owned') {
    planOwnedElsewhere(ctx, m, key, { holder: unowned.holder, what: `the live package ${unowned.id}` }, ctx.packageRefs);
    return;
  }
  if (unowned.kind === 'intent' || unowned.kind === 'adopt') {
    adopt(ctx, m, key, unowned.live, { record, resolvesIntent: unowned.kind === 'intent' });
    return;
  }
  if (entry && live && entry.specHash === record.specHash) {
    planExisting(ctx, m, key, live, entry.phase);
    return;
  }
  if (entry && entry.specHash !== record.specHash) {
    const replace = planSpecChange(ctx, c, entry, live);
    if (replace) createPackage(ctx, c, replace);
  } else if (entry && !live && ctx.live.read.packages) {
    const reasons = [`live package ${entry.id} not found (removed outside packsync); creating it again`];
    createPackage(ctx, c, { change: 'create', reasons, fields: [], first: [] });
  } else if (unowned.kind === 'conflict') {
    planConflict(ctx, c, unowned.ids);
  } else {
    createPackage(ctx, c, { change: 'create', reasons: [], fields: [], first: [] });
  }
}

/**
 * The spec or content changed: a revert, a copy another key holds, one to take over, or a
 * replacement (a new live package). Undefined once planned here; else the replacement to create.
 */
function planSpecChange(
  ctx: PlanContext,
  c: PackageCase,
  entry: InventoryEntry,
  live: V1PackageViewModel | undefined,
): NewPackage | undefined {
  const { m, key, record, matches } = c;
  const fields = packageFields(entry, c.target, m);
  if (planRevert(ctx, c, { entry, live, fields })) return undefined;
  // The new version is live already under another key (a superseded copy another key keeps for its
  // revert, or a main key): the replace must not import a second copy of it, as a create must not.
  const held = heldElsewhere(ctx, key, matches);
  if (held) {
    planOwnedElsewhere(ctx, m, key, { holder: held.holder, what: `the live package ${held.id}` }, ctx.packageRefs);
    return undefined;
  }
  // --adopt takes over a live package of the new spec nobody records (as a create's does), after
  // keeping the previous one as superseded: never a second copy of it.
  const free = ctx.options.adopt ? newest(matches.filter((p) => ctx.holdersOf(p.id).length === 0)) : undefined;
  if (free) {
    adopt(ctx, m, key, free, { record, resolvesIntent: false, first: live ? [supersedeAction(ctx, key, entry)] : [] });
    return undefined;
  }
  // The version bump of a flow that starts new versions itself: the service imported it already.
  const imported = importedByService(ctx, matches);
  if (imported) {
    const first = live ? [supersedeAction(ctx, key, entry)] : [];
    adopt(ctx, m, key, imported.pkg, { record, resolvesIntent: false, first, reason: imported.reason });
    return undefined;
  }
  // A revert after --prune forgot the previous version: it is live, unowned and exactly what git
  // asks for. A conflict, as for a fresh manifest (docs/reconcile.md), never a second import of it.
  const unownedIds = matches.filter((p) => ctx.holdersOf(p.id).length === 0).map((p) => p.id);
  if (unownedIds.length > 0) {
    ctx.object(
      'Package',
      m.metadata.name,
      'conflict',
      {
        source: m.source,
        fields,
        reasons: [
          `the new spec exists live but is not owned by packsync (${unownedIds.join(', ')}; a version forgotten by --prune, or made outside packsync); run apply with --adopt to take it over instead of importing a second copy`,
        ],
      },
      key,
    );
    ctx.packageRefs.set(m.metadata.name, blockedRef(`${key} is in conflict`));
    return undefined;
  }
  const reasons = ['spec or content changed: the API cannot update a package, so a new live package is created'];
  const first: string[] = [];
  if (live) {
    first.push(supersedeAction(ctx, key, entry));
    reasons.push(`the previous package ${live.id} stays live and in the state as superseded (a revert reuses it)`);
  }
  return { change: 'replace', reasons, fields, first };
}

/** A revert: the spec matches a package packsync created before and kept as superseded; it is reused. */
function planRevert(
  ctx: PlanContext,
  c: PackageCase,
  o: { entry: InventoryEntry; live: V1PackageViewModel | undefined; fields: ObjectPlan['fields'] },
): boolean {
  const { m, key } = c;
  const kept = ctx.superseded(key).find(([, e]) => e.specHash === c.record.specHash && usable(ctx.packagesById.get(e.id)));
  if (!kept) return false;
  const acts = o.live ? [supersedeAction(ctx, key, o.entry)] : [];
  acts.push(...restoreActions(ctx, key, kept[0], kept[1], acts.slice()));
  ctx.object(
    'Package',
    m.metadata.name,
    'update',
    {
      source: m.source,
      fields: o.fields,
      reasons: [`back to a version packsync created before: reusing live package ${kept[1].id} (kept as superseded); nothing is created`],
      actions: acts,
    },
    key,
  );
  ctx.packageRefs.set(m.metadata.name, { ref: { id: kept[1].id }, readyAfter: null, blockedBy: null, isNew: false });
  return true;
}

/** Live packages of this spec that packsync does not own: taken over if the service imported them, else a conflict. */
function planConflict(ctx: PlanContext, c: PackageCase, ids: readonly string[]): void {
  const { m, key } = c;
  const imported = importedByService(ctx, c.matches);
  if (imported) {
    adopt(ctx, m, key, imported.pkg, { record: c.record, resolvesIntent: false, reason: imported.reason });
    return;
  }
  ctx.object(
    'Package',
    m.metadata.name,
    'conflict',
    {
      source: m.source,
      reasons: [`exists live but is not owned by packsync (${ids.join(', ')}); run apply with --adopt to take it over`],
    },
    key,
  );
  ctx.packageRefs.set(m.metadata.name, blockedRef(`${key} is in conflict`));
}

/** The import of a catalog package or the create (and upload) of a custom one, then the wait until it is ready. */
function createPackage(ctx: PlanContext, c: PackageCase, how: NewPackage): void {
  const { m, key, target, record, matches } = c;
  const { first } = how;
  const knownIds = matches.map((p) => p.id);
  const actions: string[] = [...first];
  let last: string;
  if (target.kind === 'catalog') {
    last = ctx.action(key, {
      op: OP.importPackage,
      dependsOn: first.slice(),
      description: `import ${target.appName} ${target.version}`,
      appId: target.appId,
      query: target.query,
      record,
      match: { appId: target.appId, version: target.version, scope: String(target.query.scope ?? 1) },
      knownIds,
    });
    actions.push(last);
  } else {
    last = ctx.action(key, {
      op: OP.createPackage,
      dependsOn: first.slice(),
      description: `create ${target.body.name} ${target.body.version ?? ''}`.trim(),
      body: target.body,
      record: { ...record, ...(m.content ? { contentDigest: m.content.digest } : {}) },
      match: { name: target.body.name, version: target.body.version ?? '' },
      knownIds,
      hasContent: m.content !== undefined,
    });
    actions.push(last);
    if (m.content) {
      last = uploadAction(ctx, key, { content: m.content, folder: m.spec.custom?.content }, [last]);
      actions.push(last);
    }
  }
  last = waitAction(ctx, key, [last]);
  actions.push(last);
  // An exact copy: the pushed-to array keeps spare room, and this one lives as long as the plan.
  ctx.object(
    'Package',
    m.metadata.name,
    how.change,
    { source: m.source, reasons: how.reasons, fields: how.fields, actions: actions.slice() },
    key,
  );
  ctx.packageRefs.set(m.metadata.name, { ref: { key }, readyAfter: last, blockedBy: null, isNew: true });
}

function heldElsewhere(ctx: PlanContext, key: string, matches: readonly V1PackageViewModel[]): { id: string; holder: string } | undefined {
  for (const p of matches) {
    const holder = otherHolder(ctx, key, p.id);
    if (holder !== undefined) return { id: p.id, holder };
  }
  return undefined;
}

function planExisting(ctx: PlanContext, m: PackageManifest, key: string, live: V1PackageViewModel, phase: string | undefined): void {
  const ref: RefState = { ref: { id: live.id }, readyAfter: null, blockedBy: null, isNew: false };
  if (m.spec.custom && m.content && phase === 'created' && live.state === 'WaitingForContent') {
    const up = uploadAction(ctx, key, { content: m.content, folder: m.spec.custom?.content }, [], ', resuming an interrupted upload');
    const wait = waitAction(ctx, key, [up]);
    ctx.object(
      'Package',
      m.metadata.name,
      'update',
      { source: m.source, reasons: ['content upload was interrupted'], actions: [up, wait] },
      key,
    );
    ctx.packageRefs.set(m.metadata.name, { ...ref, readyAfter: wait });
  } else if (IN_FLIGHT.has(live.state) || live.state === 'WaitingForContent') {
    const wait = waitAction(ctx, key, []);
    ctx.object('Package', m.metadata.name, 'waiting', { source: m.source, reasons: [`package is ${live.state}`], actions: [wait] }, key);
    ctx.packageRefs.set(m.metadata.name, { ...ref, readyAfter: wait });
  } else if (live.state === 'Error') {
    ctx.object(
      'Package',
      m.metadata.name,
      'error',
      {
        source: m.source,
        error: {
          code: 'PACKAGE_FAILED',
          message: `live package ${live.id} is in state Error: ${ctx.live.packageErrors?.[live.id] ?? 'no details'}; change the spec to create a new one`,
        },
      },
      key,
    );
    ctx.packageRefs.set(m.metadata.name, { ...ref, blockedBy: `${key} failed processing` });
  } else {
    ctx.object('Package', m.metadata.name, 'none', { source: m.source }, key);
    ctx.packageRefs.set(m.metadata.name, ref);
  }
}

/** How a live package is taken over: its record, and why (an interrupted create, `--adopt`, the service's import). */
interface Adoption {
  record: RecordSpec;
  resolvesIntent: boolean;
  /** Actions that must run first (keeping the previous package as superseded). */
  first?: string[];
  reason?: string;
}

function adopt(ctx: PlanContext, m: PackageManifest, key: string, live: V1PackageViewModel, how: Adoption): void {
  const { record, resolvesIntent, first = [] } = how;
  const uploaded = !m.content || live.state !== 'WaitingForContent';
  const own = {
    ...(m.spec.custom ? { phase: uploaded ? ('uploaded' as const) : ('created' as const) } : {}),
    ...(m.content ? { contentDigest: m.content.digest } : {}),
  };
  const id = adoptRecord(ctx, key, m, { liveId: live.id, record, resolvesIntent, what: live.id, extra: own, dependsOn: first.slice() });
  const actions = [...first, id];
  let last = id;
  if (!uploaded && m.content) {
    last = uploadAction(ctx, key, { content: m.content, folder: m.spec.custom?.content }, [last]);
    actions.push(last);
  }
  if (live.state !== 'Completed') {
    last = waitAction(ctx, key, [last]);
    actions.push(last);
  }
  ctx.object(
    'Package',
    m.metadata.name,
    'adopt',
    {
      source: m.source,
      reasons: [how.reason ?? adoptReason(resolvesIntent, 'package')],
      actions,
    },
    key,
  );
  ctx.packageRefs.set(m.metadata.name, { ref: { id: live.id }, readyAfter: last, blockedBy: null, isNew: false });
}

/** Uploads the package's content (after its create, or resuming an interrupted upload: `note`). */
// The folder as the manifest names it: a reviewer sees what leaves the repository, not only a count.
function uploadAction(
  ctx: PlanContext,
  key: string,
  { content, folder }: { content: PackageContent; folder: string | undefined },
  dependsOn: string[],
  note = '',
): string {
  const description = `upload ${content.files} files (${content.bytes} bytes) from ${folder ?? 'content'}${note}`;
  const files = content.fileList ? { files: content.fileList } : {};
  return ctx.action(key, {
    op: OP.uploadContent,
    dependsOn,
    description,
    packageKey: key,
    dir: content.dir,
    digest: content.digest,
    ...files,
  });
}

/** Follows the package's processing in the service to its end. */
function waitAction(ctx: PlanContext, key: string, dependsOn: string[]): string {
  return ctx.action(key, { op: OP.waitPackage, dependsOn, description: 'wait for processing', packageKey: key });
}
