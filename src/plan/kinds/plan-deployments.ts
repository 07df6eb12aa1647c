/**
 * Deployments, found live by (flow id, package id). Identity fields (flow, package, version) are
 * fixed at add-deployment; state, the wave gate and contentRevision are reconciled in place.
 */
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { DeploymentManifest, DeploymentState } from '../../manifests/model.js';
import { positionOf } from '../../manifests/positions.js';
import { idOf } from '../context.js';
import type { PlanContext, RefState } from '../context.js';
import { diffFields, textHash } from '../hash.js';
import { planGate, promotionTargetError } from '../gates/plan-promotion.js';
import { waveGateError } from '../gates/wave-gate.js';
import { addActions, present } from './deployment-add.js';
import { DEFAULT_DEPLOYMENT_STATE } from '../../manifests/model.js';
import { addBreakGlassLine, holdAdd } from '../windows/window-gate.js';
import type { DeploymentRecord } from './deployment-add.js';
import { reconcileExisting, versionAlreadyLive } from './deployment-reconcile.js';
import { statusAsState } from './deployment-decisions.js';
import { reportDeleted } from '../not-planned.js';
import { OP } from '../ops.js';
import { otherHolder, planOwnedElsewhere } from '../ownership.js';
import { markMoved, moveActions, recordAction, restoreActions, supersedeAction } from '../state-writes.js';
import { serviceStarted, serviceSuccessor, supersededReason } from './service-driven.js';
import { Turns } from '../../util/turns.js';

/** What the plan knows of one deployment manifest once its flow and package resolve. */
interface DeploymentCase {
  m: DeploymentManifest;
  name: string;
  key: string;
  state: DeploymentState;
  /** The state entry of this key, if any. */
  entry: InventoryEntry | undefined;
  deps: string[];
  record: DeploymentRecord;
  specHash: string;
  identity: { flow: string; package: string; version: string | null };
  /** The live deployment of its (flow, package), once found (planFound sets it). */
  live: V1DeploymentViewModel | undefined;
}

/** The flow and package a deployment names, resolved (ids unknown while either is new). */
interface ResolvedRefs {
  flow: RefState;
  pkg: RefState;
  flowId: string | undefined;
  packageId: string | undefined;
}

export function planDeployment(ctx: PlanContext, m: DeploymentManifest): void {
  const name = m.metadata.name;
  const key = `Deployment/${name}`;
  const refs = resolveRefs(ctx, m, key);
  if (!refs) return;
  const { flow, pkg, flowId, packageId } = refs;
  const targetError = promotionTargetError(ctx, m, flowId);
  if (targetError) {
    ctx.object('Deployment', name, 'error', { source: m.toWaveSource ?? m.source, error: targetError }, key);
    return;
  }
  const live = !flow.isNew && !pkg.isNew && flowId && packageId ? ctx.deploymentsByFlowPackage.get(`${flowId}|${packageId}`) : undefined;
  const gateError = waveGateError(ctx, m, flow.isNew ? undefined : flowId, live);
  if (gateError) {
    ctx.object('Deployment', name, 'error', { source: positionOf(m, 'spec.wave'), error: gateError }, key);
    return;
  }
  const c = deploymentCase(ctx, m, key, present(flow.readyAfter, pkg.readyAfter));
  if (live) planFound(ctx, c, live, flowId);
  else planAdd(ctx, c, refs);
}

/** The manifest's flow and package, or undefined once it is reported unknown or blocked. */
function resolveRefs(ctx: PlanContext, m: DeploymentManifest, key: string): ResolvedRefs | undefined {
  const name = m.metadata.name;
  const flow = ctx.flowRefs.get(m.spec.flow);
  const pkg = ctx.packageRefs.get(m.spec.package);
  if (!flow || !pkg) {
    ctx.object(
      'Deployment',
      name,
      'error',
      { source: m.source, error: { code: 'REF_UNKNOWN', message: 'flow or package not in the desired set' } },
      key,
    );
    return undefined;
  }
  const blocked = flow.blockedBy ?? pkg.blockedBy;
  if (blocked) {
    ctx.object('Deployment', name, 'skipped', { source: m.source, reasons: [`not planned: ${blocked}`] }, key);
    return undefined;
  }
  return { flow, pkg, flowId: idOf(flow.ref), packageId: idOf(pkg.ref) };
}

function deploymentCase(ctx: PlanContext, m: DeploymentManifest, key: string, deps: string[]): DeploymentCase {
  const state = m.spec.state ?? DEFAULT_DEPLOYMENT_STATE;
  const identity = identityOf(m);
  // Made while the pass's reads were in flight when the plan was prepared (preparePlan).
  const specHash = ctx.identityHashes?.get(m) ?? identityHash(identity);
  // Optional fields assigned after the literal (same key order as spreading them in, without the
  // temporary objects and the runtime copy per deployment).
  const record: DeploymentRecord = { specHash, spec: identity, appliedState: state };
  if (m.spec.contentRevision !== undefined) record.contentRevision = m.spec.contentRevision;
  if (m.metadata.annotations) record.annotations = m.metadata.annotations;
  return { m, name: m.metadata.name, key, state, entry: ctx.entry(key), deps, record, specHash, identity, live: undefined };
}

function identityOf(m: DeploymentManifest): { flow: string; package: string; version: string | null } {
  return { flow: m.spec.flow, package: m.spec.package, version: m.spec.version ?? null };
}

/**
 * Each deployment manifest's identity hash, made in slices of the event loop: a pass makes them
 * while its reads are in flight (`preparePlan`), ~40 ms of a 15,000-deployment plan after its last read.
 */
export async function identityHashesInTurns(ms: readonly DeploymentManifest[]): Promise<Map<DeploymentManifest, string>> {
  const out = new Map<DeploymentManifest, string>();
  const turns = new Turns();
  for (const m of ms) {
    out.set(m, identityHash(identityOf(m)));
    if (turns.due()) await turns.next();
  }
  return out;
}

/**
 * hashValue(identity), the hash the state records, without its generic walk: the three keys are
 * written in sorted order and hold strings or null, so JSON.stringify gives stableStringify's bytes
 * (test/plan/digest.test.ts). 15,000 deployments are hashed in every pass of a large fleet.
 */
export function identityHash(identity: { flow: string; package: string; version: string | null }): string {
  return textHash(JSON.stringify({ flow: identity.flow, package: identity.package, version: identity.version }));
}

/** No live deployment of its (flow, package): added (again), unless the service superseded it or it waits for a window. */
function planAdd(ctx: PlanContext, c: DeploymentCase, refs: ResolvedRefs): void {
  const { m, name, key, state, entry, deps, record } = c;
  const { flow, pkg, flowId, packageId } = refs;
  if (holdAdd(ctx, key, m, state)) return;
  const reasons: string[] = [];
  const first: string[] = [];
  const deletedOutside = entry !== undefined && entry.flowId === flowId && entry.packageId === packageId && ctx.live.read.flows;
  const previous = entry ? ctx.deploymentsById.get(entry.id) : undefined;
  if (deletedOutside && supersededByService(ctx, { name, key, m, flowId, what: 'removed' })) return;
  if (deletedOutside && reportDeleted(ctx, m, key, entry.id)) return;
  if (deletedOutside) {
    reasons.push(`live deployment ${entry.id} not found (deleted outside packsync); adding it again`);
  } else if (entry && previous && !flow.replaces && !ctx.abandoned.has(entry.flowId ?? '')) {
    // The old deployment (of the previous package or flow) stays live: keep it, say so (docs/reconcile.md).
    first.push(supersedeAction(ctx, key, entry, deps));
    reasons.push(
      `a new deployment is added (the package or flow has a new live version); the previous deployment ${previous.id} (${previous.status}, wave ${previous.currentWave}/${previous.waveCount}) stays live and in the state as superseded: --prune deletes it, a revert reuses it`,
    );
  } else if (entry && entry.packageId !== packageId) {
    reasons.push('the package has a new live version: a new deployment is added to the flow');
  }
  const actions = addActions(ctx, key, m, state, {
    deps: [...deps, ...first],
    record,
    flowRef: flow.ref ?? { key: `Flow/${m.spec.flow}` },
    packageRef: pkg.ref ?? { key: `Package/${m.spec.package}` },
  });
  // A flow replacement deletes the old flow only after its deployments are added to the new one.
  if (flow.replaces && actions[0]) flow.replaces.push(actions[0]);
  const glass = addBreakGlassLine(ctx, m, state);
  if (glass) reasons.push(glass);
  const o = ctx.object('Deployment', name, 'create', { source: m.source, reasons, actions: [...first, ...actions] }, key);
  if (deletedOutside) o.drift = 'healed';
}

/** A live deployment of its (flow, package): a revert, a rename, another key's, or planned in place. */
function planFound(ctx: PlanContext, c: DeploymentCase, live: V1DeploymentViewModel, flowId: string | undefined): void {
  const { m, name, key, state, entry } = c;
  let moved: { from: string; actions: string[] } | undefined;
  let owner = entry;
  if (entry?.id !== live.id) {
    // A revert to a deployment kept as superseded (docs/reconcile.md): restore it, then reconcile it.
    const kept = ctx.superseded(key).find(([, e]) => e.id === live.id);
    if (kept) {
      planRevert(ctx, c, live, kept);
      return;
    }
    // A rename of the key that owns it: planned as the owner, the move folded in afterwards.
    const mv = ctx.claimMove(key, live.id);
    if (mv) {
      const r = moveActions(ctx, key, mv.from, mv.entry);
      owner = r.entry;
      moved = { from: mv.from, actions: r.actions };
    } else {
      // Another key owns it and is not moving here: never adopted by this key (docs/reconcile.md).
      const holder = otherHolder(ctx, key, live.id);
      if (holder !== undefined) {
        planOwnedElsewhere(ctx, m, key, {
          holder,
          what: `the live deployment ${live.id} of flow ${live.flowId} and package ${live.packageId}`,
        });
        return;
      }
    }
  }
  if (live.status === 'Stopped' && state === 'running' && owner?.id === live.id) {
    if (supersededByService(ctx, { name, key, m, flowId, what: 'stopped', since: live })) return;
  }
  try {
    // The case is this deployment's own (made by deploymentCase for this call): completed in place
    // rather than copied, once per deployment of every pass.
    c.live = live;
    c.entry = owner;
    planLiveDeployment(ctx, c as LiveDeploymentCase);
  } finally {
    if (moved) markMoved(ctx, key, moved.from, moved.actions);
  }
}

/** Back to a deployment this key added before and kept as superseded: restored, then reconciled. */
function planRevert(ctx: PlanContext, c: DeploymentCase, live: V1DeploymentViewModel, kept: [string, InventoryEntry]): void {
  const { m, name, key, state, entry, deps } = c;
  const acts: string[] = [];
  if (entry && ctx.deploymentsById.has(entry.id)) acts.push(supersedeAction(ctx, key, entry, deps));
  const [restore, forget] = restoreActions(ctx, key, kept[0], kept[1], acts.length > 0 ? acts.slice() : deps);
  const { superseded: _s, ...rest } = kept[1];
  // The reconcile's own record of this key comes after the restore's, never before it.
  const r = reconcileExisting(ctx, key, m, state, { live, entry: { ...rest, name }, deps: [restore ?? '', ...deps].filter(Boolean) });
  const o = ctx.object(
    'Deployment',
    name,
    r.change === 'none' ? 'update' : r.change,
    {
      source: m.source,
      reasons: [
        `back to a deployment packsync added before: reusing ${live.id} (${live.status}, wave ${live.currentWave}/${live.waveCount}); nothing is added`,
        ...r.reasons,
      ],
      fields: r.fields,
      actions: [...acts, restore ?? '', forget ?? '', ...r.actions].filter(Boolean),
    },
    key,
  );
  if (r.drift) o.drift = r.drift;
}

/** One deployment manifest matched to the live deployment of its (flow, package), with the state entry that owns it (after a move is folded in). */
interface LiveDeploymentCase extends DeploymentCase {
  live: V1DeploymentViewModel;
}

/** A deployment found live by (flow, package): adopted, recorded, replaced or reconciled in place. */
function planLiveDeployment(ctx: PlanContext, c: LiveDeploymentCase): void {
  const { entry, live } = c;
  if (!entry || entry.id !== live.id) {
    planUnowned(ctx, c);
    return;
  }
  if (entry.specHash !== c.specHash) {
    planVersionChange(ctx, { ...c, entry });
    return;
  }
  const { m, key, name, state } = c;
  const r = reconcileExisting(ctx, key, m, state, { live, entry, deps: c.deps });
  const promotionError = planGate(ctx, key, m, { live, entry }, r);
  const o = ctx.object(
    'Deployment',
    name,
    promotionError ? 'error' : r.change,
    { source: m.source, reasons: r.reasons, fields: r.fields, actions: r.actions, ...(promotionError ? { error: promotionError } : {}) },
    key,
  );
  // Set afterwards: drift is rare, and the object literals in ctx.object keep one shape each.
  if (r.drift) o.drift = r.drift;
}

/** Live but not this key's: a conflict, or taken over (an interrupted run's, the service's, a kept flow's, --adopt). */
function planUnowned(ctx: PlanContext, c: LiveDeploymentCase): void {
  const { m, key, name, state, live, entry, deps } = c;
  const intent = ctx.intent(key);
  const resolves = intent !== undefined && !intent.knownIds.includes(live.id);
  // Its flow's replacement was abandoned (git went back): the deployment on the kept flow is its own again.
  const back = entry?.flowId !== undefined && ctx.abandoned.get(entry.flowId)?.kept === live.flowId;
  // The version git now names is the one the service started by itself: git caught up with it.
  const byService = !resolves && !back && serviceStarted(ctx, live.flowId).includes(live);
  if (!resolves && !back && !byService && !ctx.options.adopt) {
    ctx.object(
      'Deployment',
      name,
      'conflict',
      {
        source: m.source,
        reasons: [
          `deployment ${live.id} of this flow and package exists live but is not owned by packsync; run apply with --adopt to take it over`,
        ],
      },
      key,
    );
    return;
  }
  const adoptEntry = adoptedEntry(ctx, c);
  // The version it replaces stays in the state as superseded, so a revert reuses it (as an in-place bump does).
  const first =
    byService && entry && entry.id !== live.id && ctx.deploymentsById.has(entry.id) ? [supersedeAction(ctx, key, entry, deps)] : [];
  const how = takeOverWords(live, entry, byService ? 'service' : back ? 'back' : resolves ? 'resolves' : 'adopt');
  const rec = ctx.action(key, {
    op: OP.record,
    dependsOn: first.length > 0 ? first.slice() : deps,
    description: how[0],
    entry: adoptEntry,
    resolvesIntent: resolves,
  });
  // The abandoned flow is deleted only once the deployment is recorded on the kept one.
  if (back && entry?.flowId) ctx.abandoned.get(entry.flowId)?.after.push(rec);
  const rest = reconcileExisting(ctx, key, m, state, { live, entry: adoptEntry, deps: [rec] });
  ctx.object(
    'Deployment',
    name,
    'adopt',
    { source: m.source, reasons: [how[1], ...rest.reasons], actions: [...first, rec, ...rest.actions] },
    key,
  );
}

/** The state entry of a live deployment taken over: its applied state is what the service shows, so nothing reads as drift. */
function adoptedEntry(ctx: PlanContext, c: LiveDeploymentCase): InventoryEntry {
  const { m, live } = c;
  return {
    kind: 'Deployment',
    name: c.name,
    id: live.id,
    specHash: c.specHash,
    spec: c.identity,
    revision: null,
    flowId: live.flowId,
    packageId: live.packageId,
    appliedState: statusAsState(live),
    ...(m.spec.contentRevision !== undefined ? { contentRevision: m.spec.contentRevision } : {}),
    ...(m.metadata.annotations ? { annotations: m.metadata.annotations } : {}),
    updatedAt: ctx.timestamp(),
  };
}

/** The record action's description and the plan's reason for each way a live deployment is taken over. */
function takeOverWords(
  live: V1DeploymentViewModel,
  entry: InventoryEntry | undefined,
  why: 'service' | 'back' | 'resolves' | 'adopt',
): [string, string] {
  switch (why) {
    case 'service':
      return [
        `take over deployment ${live.id} the service started`,
        `started by the service for this version (its flow starts new versions itself): taking over ${live.id} (${live.status}, wave ${live.currentWave}/${live.waveCount}); nothing is added`,
      ];
    case 'back':
      return [
        `take deployment ${live.id} back (its flow's replacement was abandoned)`,
        `back to deployment ${live.id} on the kept flow: the one an interrupted replacement added (${entry?.id ?? ''}) is deleted with its flow`,
      ];
    case 'resolves':
      return [`adopt deployment ${live.id} added by an interrupted run`, 'resolved an add-deployment of an interrupted run'];
    case 'adopt':
      return [`adopt existing deployment ${live.id}`, 'adopting an existing live deployment (--adopt)'];
  }
}

/**
 * Git names another version than the state recorded for this live deployment: recorded when that
 * version is already live, otherwise refused or (with --allow-replace) deleted and added again.
 */
function planVersionChange(ctx: PlanContext, c: LiveDeploymentCase & { entry: InventoryEntry }): void {
  const { m, key, name, state, live, entry, deps, record, specHash, identity } = c;
  const already = versionAlreadyLive(ctx, entry, identity, live);
  if (already) {
    // Writing down what is already true (docs/reconcile.md compares identity against live): record it.
    const now: InventoryEntry = { ...entry, specHash, spec: identity };
    const rec = recordAction(ctx, key, deps, 'record the version in the state (already live, no API call)', now);
    const r = reconcileExisting(ctx, key, m, state, { live, entry: now, deps: [rec] });
    const o = ctx.object(
      'Deployment',
      name,
      r.change === 'none' ? 'update' : r.change,
      { source: m.source, reasons: [already, ...r.reasons], fields: r.fields, actions: [rec, ...r.actions] },
      key,
    );
    if (r.drift) o.drift = r.drift;
    return;
  }
  const fields = diffFields(entry.spec, identity);
  if (!ctx.options.allowReplace) {
    ctx.object(
      'Deployment',
      name,
      'requires-replacement',
      {
        source: m.source,
        fields,
        reasons: ['version is fixed when a deployment is added; apply with --allow-replace to delete and add it again'],
      },
      key,
    );
    return;
  }
  // Deleted and added again with a start: the add moves the rollout, so the whole replacement waits for the window.
  if (holdAdd(ctx, key, m, state)) return;
  const del = ctx.action(key, {
    op: OP.deleteDeployment,
    dependsOn: deps,
    description: `delete deployment ${live.id} to replace it`,
    deploymentId: live.id,
  });
  const actions = addActions(ctx, key, m, state, {
    deps: [del],
    record,
    flowRef: { id: live.flowId },
    packageRef: { id: live.packageId },
  });
  const reasons = ['deployment identity changed (--allow-replace)'];
  const glass = addBreakGlassLine(ctx, m, state);
  if (glass) reasons.push(glass);
  const o = ctx.object('Deployment', name, 'replace', { source: m.source, fields, reasons, actions: [del, ...actions] }, key);
  // The live deployment is deleted, a new one added: one to delete, one to create (docs/reconcile.md).
  o.destroys = [{ key, id: live.id, status: live.status, wave: `${live.currentWave}/${live.waveCount}` }];
}

/** A git deployment the service stopped or removed for a newer version: no write, said so (plan/kinds/service-driven.ts). */
function supersededByService(
  ctx: PlanContext,
  o: {
    name: string;
    key: string;
    m: DeploymentManifest;
    flowId: string | undefined;
    what: 'stopped' | 'removed';
    since?: V1DeploymentViewModel;
  },
): boolean {
  const successor = serviceSuccessor(ctx, o.flowId, o.since);
  if (!successor) return false;
  ctx.object('Deployment', o.name, 'none', { source: o.m.source, reasons: [supersededReason(successor, o.what)] }, o.key);
  return true;
}
