/**
 * Flows. The API cannot update a flow: a changed spec is "requires replacement" with the fields
 * that force it, and is replaced (create, then delete) only with --allow-replace; a replacement
 * in progress is kept in the state and finished by a later apply (flow-replacement.ts).
 */
import { FLOW_FLAGS, INSTALLER_SCOPE } from '../../api/wire/index.js';
import type { V1FlowCreateViewModel } from '../../api/wire/index.js';
import type { FlowManifest } from '../../manifests/model.js';
import type { LiveFlow } from '../../live/types.js';
import { isUuid, ResolveError } from '../../live/resolve.js';
import type { PlanContext, RefState } from '../context.js';
import { diffFields, hashValue } from '../hash.js';
import { adoptReason, adoptRecord, decideUnowned, flowsMadeBy, oldest, planOwnedElsewhere } from '../ownership.js';
import type { Unowned } from '../ownership.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { ObjectPlan, RecordSpec } from '../types.js';
import { OP } from '../ops.js';
import { asItIs, blockedRef, planResolveError, reportDeleted } from '../not-planned.js';
import { markMoved, moveActions } from '../state-writes.js';
import { flowFieldsInWords, liveFlowDiff, liveSpec } from './flow-live-spec.js';
import { abandonMadeFlow, abandonReplacement, deleteAbandoned } from './flow-abandon.js';
import {
  blockReplacement,
  deleteOldFlows,
  finishReplacement,
  forgetReplaced,
  pendingReplacement,
  replacingAction,
  wouldDestroy,
} from './flow-replacement.js';
import type { PendingReplacement } from './flow-replacement.js';
import { holdReplacement } from '../windows/window-gate.js';

interface FlowTarget {
  body: V1FlowCreateViewModel;
  spec: Record<string, unknown>;
}

export function flowFlagsToMask(names: readonly (keyof typeof FLOW_FLAGS)[]): number {
  return names.reduce((mask, n) => mask | FLOW_FLAGS[n], 0);
}

export function planFlow(ctx: PlanContext, m: FlowManifest): void {
  const moved = planFlowEntry(ctx, m);
  if (moved) markMoved(ctx, `Flow/${m.metadata.name}`, moved.from, moved.actions);
}

/** What the plan knows of one flow manifest once its target resolves. */
interface FlowCase {
  m: FlowManifest;
  key: string;
  /** The flow's display name (live flows are found by it). */
  name: string;
  target: FlowTarget;
  record: RecordSpec;
  specHash: string;
  pkg: RefState | undefined;
  sameName: readonly LiveFlow[];
  pending: PendingReplacement;
  /** Finishes a replacement in progress once the object is planned. */
  finish: (o: ObjectPlan) => void;
}

/** Plans one flow; returns the rename it detected, if any, for the caller to fold into the object. */
function planFlowEntry(ctx: PlanContext, m: FlowManifest): { from: string; actions: string[] } | undefined {
  const key = `Flow/${m.metadata.name}`;
  let entry = ctx.entry(key);
  let liveNow = entry ? ctx.flowsById.get(entry.id) : undefined;
  let moved: { from: string; actions: string[] } | undefined;
  let target: FlowTarget;
  try {
    target = flowTarget(ctx, m);
  } catch (e) {
    planResolveError(ctx, m, key, e, ctx.flowRefs);
    return moved;
  }
  // A flow on a package that cannot be used this pass cannot be created either.
  const pkg = m.spec.package ? ctx.packageRefs.get(m.spec.package) : undefined;
  if (pkg?.blockedBy) {
    ctx.object('Flow', m.metadata.name, 'skipped', { source: m.source, reasons: [`not planned: ${pkg.blockedBy}`] }, key);
    ctx.flowRefs.set(m.metadata.name, asItIs(liveNow?.id, pkg.blockedBy));
    return moved;
  }
  const specHash = hashValue(target.spec);
  const record: RecordSpec = { specHash, spec: target.spec };
  if (m.metadata.annotations) record.annotations = m.metadata.annotations;
  const name = target.body.name ?? m.metadata.name;
  const sameName = ctx.flowsByName.get(name) ?? [];
  if (!entry) {
    const rename = claimRename(ctx, key, sameName);
    if (rename) ({ entry, live: liveNow, moved } = rename);
  }
  const madeEarlier = entry ? [] : madeUnderAnotherName(ctx, key, name);
  const unowned = decideUnowned(ctx, key, madeEarlier.length > 0 ? [...sameName, ...madeEarlier] : sameName, oldest, entry !== undefined);
  if (unowned.kind === 'owned') {
    planOwnedElsewhere(ctx, m, key, { holder: unowned.holder, what: `the live flow "${name}" (${unowned.id})` }, ctx.flowRefs);
    return moved;
  }
  // The live flow the main key owns after this pass's bookkeeping (one an interrupted create made,
  // else the recorded one): a replacement in progress is told apart from it.
  const current = unowned.kind === 'intent' || unowned.kind === 'adopt' ? unowned.live : liveNow;
  const pending = pendingReplacement(ctx, key, current?.id);
  forgetReplaced(ctx, pending.gone, 'the replaced flow is already deleted live');
  if (entry) deleteAbandoned(ctx, m, pending.abandoned, current?.id ?? entry.id);
  const finish = (o: ObjectPlan): void => {
    const ref = ctx.flowRefs.get(m.metadata.name);
    if (ref) finishReplacement(ctx, o, ref, pending.live);
  };
  const c: FlowCase = { m, key, name, target, record, specHash, pkg, sameName, pending, finish };
  if (entry && liveNow && abandonsHere(ctx, c, { entry, liveNow, unowned })) return moved;
  if (pending.live.length > 0 && !ctx.options.allowReplace) {
    blockReplacement(ctx, { m, key }, pending.live, current, entry !== undefined && liveNow !== undefined && entry.specHash !== specHash);
    return moved;
  }
  if (unowned.kind === 'intent' || unowned.kind === 'adopt') {
    finish(adoptFlow(ctx, m, key, { live: unowned.live, target, record, resolvesIntent: unowned.kind === 'intent' }));
  } else if (entry && liveNow) {
    planRecordedFlow(ctx, c, entry, liveNow);
  } else {
    planMissingFlow(ctx, c, entry, unowned);
  }
  return moved;
}

/** A rename: a live flow of this display name is owned under a key that left git (docs/reconcile.md). */
function claimRename(
  ctx: PlanContext,
  key: string,
  sameName: readonly LiveFlow[],
): { entry: InventoryEntry; live: LiveFlow; moved: { from: string; actions: string[] } } | undefined {
  for (const f of sameName) {
    const mv = ctx.claimMove(key, f.id);
    if (!mv) continue;
    const r = moveActions(ctx, key, mv.from, mv.entry);
    return { entry: r.entry, live: f, moved: { from: mv.from, actions: r.actions } };
  }
  return undefined;
}

/** A replacement git walked away from: the half-made or already-made new flow is undone (flow-abandon.ts). */
function abandonsHere(ctx: PlanContext, c: FlowCase, o: { entry: InventoryEntry; liveNow: LiveFlow; unowned: Unowned<LiveFlow> }): boolean {
  const { m, key, pending } = c;
  const { entry, liveNow, unowned } = o;
  if (unowned.kind === 'intent' && entry.specHash === c.specHash && unowned.live.id !== liveNow.id) {
    // Git went back to the flow being replaced: the half-made new flow is undone, not adopted.
    const olds = pending.live.filter((x) => x.entry.id === liveNow.id);
    if (olds.length === pending.live.length && liveFlowDiff(c.target.body, unowned.live).length > 0) {
      abandonReplacement(ctx, { m, key, entry }, unowned.live, olds);
      return true;
    }
  }
  return unowned.kind !== 'intent' && abandonMadeFlow(ctx, { m, key, entry }, liveNow, c.specHash, pending);
}

/** A flow recorded in the state and live: unchanged, or a change the API can only make by replacing it. */
function planRecordedFlow(ctx: PlanContext, c: FlowCase, entry: InventoryEntry, liveNow: LiveFlow): void {
  const { m, key, pending } = c;
  if (entry.specHash === c.specHash) {
    // A replacement stopped before its create and no longer wanted (git went back): drop its record.
    if (pending.stale.length > 0) forgetReplaced(ctx, pending.stale, 'the replacement it recorded is no longer needed');
    const o = ctx.object('Flow', m.metadata.name, 'none', { source: m.source }, key);
    ctx.flowRefs.set(m.metadata.name, { ref: { id: liveNow.id }, readyAfter: null, blockedBy: null, isNew: false });
    c.finish(o);
    return;
  }
  const fields = flowFieldsInWords(diffFields(entry.spec, c.target.spec));
  const names = fields.map((f) => f.field);
  const forces = `the API cannot update a flow; changing ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}` : (names[0] ?? 'its spec')} forces a replacement`;
  if (ctx.options.allowReplace) {
    replaceFlow(ctx, c, { entry, liveNow, fields, forces });
    return;
  }
  const o = ctx.object(
    'Flow',
    m.metadata.name,
    'requires-replacement',
    {
      source: m.source,
      fields,
      reasons: [`${forces} (apply with --allow-replace)`],
    },
    key,
  );
  const destroys = wouldDestroy(ctx, [liveNow.id]);
  if (destroys.length > 0) o.destroys = destroys;
  ctx.flowRefs.set(m.metadata.name, { ref: { id: liveNow.id }, readyAfter: null, blockedBy: null, isNew: false });
}

/**
 * Create first, add the deployments to the new flow, delete the old flow last (docs/reconcile.md): the
 * account is never without the flow, and a failed create deletes nothing. The old flow is
 * recorded as being replaced before the create, so an interrupted apply is finished by the next.
 */
function replaceFlow(
  ctx: PlanContext,
  c: FlowCase,
  o: { entry: InventoryEntry; liveNow: LiveFlow; fields: ObjectPlan['fields']; forces: string },
): void {
  const { m, key } = c;
  const { liveNow } = o;
  const held = holdReplacement(ctx, key, m.metadata.name);
  if (held !== undefined) {
    // Nothing half-done: the new flow would get its deployments only when the window opens, and the
    // old flow's delete would have taken its rollouts long before (docs/policy.md).
    const why = `${o.forces} (--allow-replace); the replacement waits: ${held}, because the old flow and its rollouts are deleted only after its deployments are added and started on the new flow`;
    ctx.object('Flow', m.metadata.name, 'waiting', { source: m.source, fields: o.fields, reasons: [why] }, key);
    ctx.flowRefs.set(m.metadata.name, { ref: { id: liveNow.id }, readyAfter: null, blockedBy: null, isNew: false });
    return;
  }
  const keep = replacingAction(ctx, key, o.entry);
  const create = createFlowAction(ctx, key, { target: c.target, record: c.record, pkg: c.pkg, sameName: c.sameName, first: [keep] });
  const deleteAfter = [create];
  const olds = [
    { key: `Flow/${m.metadata.name}#${liveNow.id}`, id: liveNow.id },
    ...c.pending.live.map((x) => ({ key: x.key, id: x.entry.id })),
  ];
  const del = deleteOldFlows(ctx, olds, deleteAfter);
  const plan = ctx.object(
    'Flow',
    m.metadata.name,
    'replace',
    {
      source: m.source,
      fields: o.fields,
      reasons: [`${o.forces} (--allow-replace): the new flow is created and its deployments added before the old flow is deleted`],
      actions: [keep, create, ...del.actions],
    },
    key,
  );
  if (del.destroys.length > 0) plan.destroys = del.destroys;
  ctx.flowRefs.set(m.metadata.name, { ref: { key }, readyAfter: create, blockedBy: null, isNew: true, replaces: deleteAfter });
}

/** Not live under this key: a conflict with an unowned flow of its name, reported as deleted, or created (again). */
function planMissingFlow(ctx: PlanContext, c: FlowCase, entry: InventoryEntry | undefined, unowned: Unowned<LiveFlow>): void {
  const { m, key, name } = c;
  if (unowned.kind === 'conflict') {
    ctx.object(
      'Flow',
      m.metadata.name,
      'conflict',
      {
        source: m.source,
        reasons: [
          `a flow named "${name}" exists live but is not owned by packsync (${unowned.ids.join(', ')}); run apply with --adopt to take it over`,
        ],
      },
      key,
    );
    ctx.flowRefs.set(m.metadata.name, blockedRef(`${key} is in conflict`));
    return;
  }
  if (entry && ctx.live.read.flows && reportDeleted(ctx, m, key, entry.id)) {
    // Its deployments went with it: each reports its own drift against the recorded flow id.
    ctx.flowRefs.set(m.metadata.name, { ref: { id: entry.id }, readyAfter: null, blockedBy: null, isNew: false });
    return;
  }
  const reasons = entry && ctx.live.read.flows ? [`live flow ${entry.id} not found (deleted outside packsync); creating it again`] : [];
  const create = createFlowAction(ctx, key, { target: c.target, record: c.record, pkg: c.pkg, sameName: c.sameName });
  const o = ctx.object('Flow', m.metadata.name, 'create', { source: m.source, reasons, actions: [create] }, key);
  ctx.flowRefs.set(m.metadata.name, { ref: { key }, readyAfter: create, blockedBy: null, isNew: true });
  c.finish(o);
}

/**
 * The create of the flow, after `first` and the package it is built on; the live flows of the same
 * name are known, so an interrupted create is told apart from them.
 */
function createFlowAction(
  ctx: PlanContext,
  key: string,
  o: { target: FlowTarget; record: RecordSpec; pkg: RefState | undefined; sameName: readonly LiveFlow[]; first?: string[] },
): string {
  const { target, record, pkg, sameName, first = [] } = o;
  const packageRef = pkg?.ref ?? null;
  const dependsOn = [...first, ...(pkg?.readyAfter ? [pkg.readyAfter] : [])];
  const knownIds = sameName.map((f) => f.id);
  const name = target.body.name ?? key.slice('Flow/'.length);
  const description = `create flow "${name}"${target.body.patchGroupId ? ' from a patch group' : ''}`;
  const body = target.body;
  const match = { name };
  // Two literals rather than spreading the optional packageRef in: same key order, no copy.
  return ctx.action(
    key,
    packageRef
      ? { op: OP.createFlow, dependsOn, description, body, packageRef, record, match, knownIds }
      : { op: OP.createFlow, dependsOn, description, body, record, match, knownIds },
  );
}

function adoptFlow(
  ctx: PlanContext,
  m: FlowManifest,
  key: string,
  found: {
    live: LiveFlow;
    target: FlowTarget;
    record: RecordSpec;
    resolvesIntent: boolean;
  },
): ObjectPlan {
  const { live, target, record, resolvesIntent } = found;
  // Recorded as it is live: a flow that differs from git is then replaced, never taken as in sync.
  const diff = liveFlowDiff(target.body, live);
  const spec = diff.length > 0 ? liveSpec(target.spec, diff) : record.spec;
  const as = diff.length > 0 ? { ...record, spec, specHash: hashValue(spec) } : record;
  const id = adoptRecord(ctx, key, m, { liveId: live.id, record: as, resolvesIntent, what: `flow ${live.id}` });
  const differs = flowFieldsInWords(diff).map((f) => `${f.field} is ${JSON.stringify(f.from)} live, ${JSON.stringify(f.to)} in git`);
  const o = ctx.object(
    'Flow',
    m.metadata.name,
    'adopt',
    {
      source: m.source,
      reasons: [
        adoptReason(resolvesIntent, 'flow'),
        ...(differs.length > 0 ? [`recorded as it is live (${differs.join('; ')}): the next plan replaces it`] : []),
      ],
      actions: [id],
    },
    key,
  );
  ctx.flowRefs.set(m.metadata.name, { ref: { id: live.id }, readyAfter: id, blockedBy: null, isNew: false });
  return o;
}

function flowTarget(ctx: PlanContext, m: FlowManifest): FlowTarget {
  const s = m.spec;
  const body: V1FlowCreateViewModel = { name: s.name ?? m.metadata.name };
  let appId: string | null = null;
  if (s.app) {
    appId = ctx.apps.resolve(s.app, 'spec.app').id;
    body.appId = appId;
  }
  if (s.patchGroup) body.patchGroupId = patchGroupId(ctx, s.patchGroup);
  if (s.scope) body.scope = INSTALLER_SCOPE[s.scope];
  if (s.flags) body.flags = flowFlagsToMask(s.flags);
  if (s.supersedenceHistoryCount !== undefined) body.supersedenceHistoryCount = s.supersedenceHistoryCount;
  if (s.scriptTemplate) body.templateId = ctx.templates.resolve(s.scriptTemplate, 'spec.scriptTemplate').id;
  const spec = {
    name: body.name,
    app: appId,
    package: s.package ?? null,
    patchGroup: body.patchGroupId ?? null,
    scope: body.scope ?? null,
    flags: body.flags ?? 0,
    supersedenceHistoryCount: body.supersedenceHistoryCount ?? null,
    scriptTemplate: body.templateId ?? null,
  };
  return { body, spec };
}

/**
 * The patch group's id: as written, or a name found in the service's list of patch groups. The v1
 * API has no such list, so against it a name is an error of this flow, before anything is written
 * (the packsync simulator lists its own; docs/manifests.md, Flow `patchGroup`).
 */
function patchGroupId(ctx: PlanContext, ref: string): string {
  if (isUuid(ref)) return ref;
  if (!ctx.live.patchGroups) {
    throw new ResolveError(
      'REF_UNKNOWN',
      `patch group "${ref}" is a name, and this service has no list of patch groups to find it in (the v1 API has none): write the patch group's id`,
      'spec.patchGroup',
    );
  }
  return ctx.patchGroups.resolve(ref, 'spec.patchGroup').id;
}

/**
 * Flows an interrupted create of `key` made under the name it had then, when git names the flow
 * differently now (the manifest was edited before the next run): its pending create still finds
 * them, so the key adopts the one it made (the plan after renames or replaces it) instead of
 * creating a second flow and leaving the first live and unowned. Only flows no key records and
 * that were not there before the create.
 */
function madeUnderAnotherName(ctx: PlanContext, key: string, name: string): LiveFlow[] {
  const intent = ctx.intent(key);
  return intent?.match['name'] === name ? [] : flowsMadeBy(ctx, intent);
}
