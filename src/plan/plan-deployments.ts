/**
 * Deployments, found live by (flow id, package id). Identity fields (flow, package, version) are
 * fixed at add-deployment; state, the wave gate and contentRevision are reconciled in place.
 */
import type { V1DeploymentViewModel } from '../api/wire-types.js';
import type { InventoryEntry } from '../state/inventory-types.js';
import type { DeploymentManifest, DeploymentState } from '../manifests/model.js';
import { positionOf } from '../manifests/positions.js';
import { idOf } from './context.js';
import type { PlanContext } from './context.js';
import { diffFields, hashValue } from './hash.js';
import { planGate, promotionTargetError } from './plan-promotion.js';
import type { Change, DriftHandling, ObjectPlan } from './types.js';
import { pastGateReason, waveGateError } from './wave-gate.js';

/** Default when a manifest leaves `state` out: deploying is the point of a Deployment. */
export const DEFAULT_DEPLOYMENT_STATE: DeploymentState = 'running';

export function planDeployment(ctx: PlanContext, m: DeploymentManifest): void {
  const name = m.metadata.name;
  const key = `Deployment/${name}`;
  if (m.spec.suspend) {
    ctx.object('Deployment', name, 'skipped', { source: m.source, reasons: ['suspended'] }, key);
    return;
  }
  const flow = ctx.flowRefs.get(m.spec.flow);
  const pkg = ctx.packageRefs.get(m.spec.package);
  if (!flow || !pkg) {
    ctx.object('Deployment', name, 'error', { source: m.source, error: { code: 'REF_UNKNOWN', message: 'flow or package not in the desired set' } }, key);
    return;
  }
  const blocked = flow.blockedBy ?? pkg.blockedBy;
  if (blocked) {
    ctx.object('Deployment', name, 'skipped', { source: m.source, reasons: [`not planned: ${blocked}`] }, key);
    return;
  }
  const state = m.spec.state ?? DEFAULT_DEPLOYMENT_STATE;
  const identity = { flow: m.spec.flow, package: m.spec.package, version: m.spec.version ?? null };
  const specHash = hashValue(identity);
  const entry = ctx.entry(key);
  const deps = present(flow.readyAfter, pkg.readyAfter);
  // Optional fields assigned after the literal (same key order as spreading them in, without the
  // temporary objects and the runtime copy per deployment).
  const record: DeploymentRecord = { specHash, spec: identity, appliedState: state };
  if (m.spec.contentRevision !== undefined) record.contentRevision = m.spec.contentRevision;
  if (m.metadata.annotations) record.annotations = m.metadata.annotations;

  const flowId = idOf(flow.ref);
  const packageId = idOf(pkg.ref);
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

  if (!live) {
    const reasons: string[] = [];
    const first: string[] = [];
    const deletedOutside = entry !== undefined && entry.flowId === flowId && entry.packageId === packageId && ctx.live.read.flows;
    const previous = entry ? ctx.deploymentsById.get(entry.id) : undefined;
    if (deletedOutside) {
      reasons.push(`live deployment ${entry.id} not found (deleted outside packsync); adding it again`);
    } else if (entry && previous && !flow.replaces) {
      // The old deployment (of the previous package or flow) stays live: keep it, say so (design §4).
      first.push(ctx.supersedeAction(key, entry, deps));
      reasons.push(
        `a new deployment is added (the package or flow has a new live version); the previous deployment ${previous.id} (${previous.status}, wave ${previous.currentWave}/${previous.waveCount}) stays live and in the state as superseded: --prune deletes it, a revert reuses it`,
      );
    } else if (entry && entry.packageId !== packageId) {
      reasons.push('the package has a new live version: a new deployment is added to the flow');
    }
    const actions = addActions(ctx, key, m, state, [...deps, ...first], record, flow.ref ?? { key: `Flow/${m.spec.flow}` }, pkg.ref ?? { key: `Package/${m.spec.package}` });
    // A flow replacement deletes the old flow only after its deployments are added to the new one.
    if (flow.replaces && actions[0]) flow.replaces.push(actions[0]);
    const o = ctx.object('Deployment', name, 'create', { source: m.source, reasons, actions: [...first, ...actions] }, key);
    if (deletedOutside) o.drift = 'healed';
    return;
  }

  let owned = entry?.id === live.id;
  if (!owned) {
    // A revert to a deployment kept as superseded, or a rename of the key that owns it (design §4).
    const kept = ctx.superseded(key).find(([, e]) => e.id === live.id);
    const mv = kept ? undefined : ctx.claimMove(key, live.id);
    if (kept || mv) {
      const acts: string[] = [];
      let now: InventoryEntry;
      if (kept) {
        if (entry && ctx.deploymentsById.has(entry.id)) acts.push(ctx.supersedeAction(key, entry, deps));
        acts.push(...ctx.restoreActions(key, kept[0], kept[1], acts.length > 0 ? acts.slice() : deps));
        const { superseded: _s, ...rest } = kept[1];
        now = { ...rest, name };
      } else if (mv) {
        const moved = ctx.moveActions(key, mv.from, mv.entry);
        acts.push(...moved.actions);
        now = moved.entry;
      } else return;
      const r = reconcileExisting(ctx, key, m, state, live, now, [acts[0] ?? '', ...deps].filter(Boolean));
      const o = ctx.object('Deployment', name, r.change === 'none' ? (mv ? 'move' : 'update') : r.change, {
        source: m.source,
        reasons: [kept ? `back to a deployment packsync added before: reusing ${live.id} (${live.status}, wave ${live.currentWave}/${live.waveCount}); nothing is added` : `${mv?.from ?? ''} has moved to ${key}`, ...r.reasons],
        fields: r.fields,
        actions: [...acts, ...r.actions],
      }, key);
      if (mv) o.movedFrom = mv.from;
      if (r.drift) o.drift = r.drift;
      return;
    }
    owned = false;
  }
  if (!owned || !entry) {
    const intent = ctx.intent(key);
    const resolves = intent !== undefined && !intent.knownIds.includes(live.id);
    if (!resolves && !ctx.options.adopt) {
      ctx.object('Deployment', name, 'conflict', {
        source: m.source,
        reasons: [`deployment ${live.id} of this flow and package exists live but is not owned by packsync; run apply with --adopt to take it over`],
      }, key);
      return;
    }
    const adoptEntry: InventoryEntry = {
      kind: 'Deployment',
      name,
      id: live.id,
      specHash,
      spec: identity,
      revision: null,
      flowId: live.flowId,
      packageId: live.packageId,
      // An adopted deployment's applied state is what the service shows, so nothing reads as drift.
      appliedState: statusAsState(live),
      ...(m.spec.contentRevision !== undefined ? { contentRevision: m.spec.contentRevision } : {}),
      ...(m.metadata.annotations ? { annotations: m.metadata.annotations } : {}),
      updatedAt: ctx.timestamp(),
    };
    const rec = ctx.action(key, {
      op: 'record',
      dependsOn: deps,
      description: resolves ? `adopt deployment ${live.id} added by an interrupted run` : `adopt existing deployment ${live.id}`,
      entry: adoptEntry,
      resolvesIntent: resolves,
    });
    const rest = reconcileExisting(ctx, key, m, state, live, adoptEntry, [rec]);
    ctx.object('Deployment', name, 'adopt', {
      source: m.source,
      reasons: [resolves ? 'resolved an add-deployment interrupted by a crash' : 'adopting an existing live deployment (--adopt)', ...rest.reasons],
      actions: [rec, ...rest.actions],
    }, key);
    return;
  }

  const already = entry.specHash !== specHash ? versionAlreadyLive(ctx, entry, identity, live) : undefined;
  if (already) {
    // Writing down what is already true (design §4 compares identity against live): record it.
    const now: InventoryEntry = { ...entry, specHash, spec: identity };
    const rec = ctx.action(key, { op: 'record', dependsOn: deps, description: 'record the version in the state (already live, no API call)', entry: { ...now, updatedAt: ctx.timestamp() }, resolvesIntent: false });
    const r = reconcileExisting(ctx, key, m, state, live, now, [rec]);
    const o = ctx.object('Deployment', name, r.change === 'none' ? 'update' : r.change, { source: m.source, reasons: [already, ...r.reasons], fields: r.fields, actions: [rec, ...r.actions] }, key);
    if (r.drift) o.drift = r.drift;
    return;
  }
  if (entry.specHash !== specHash) {
    const fields = diffFields(entry.spec, identity);
    if (!ctx.options.allowReplace) {
      ctx.object('Deployment', name, 'requires-replacement', {
        source: m.source,
        fields,
        reasons: ['version is fixed when a deployment is added; apply with --allow-replace to delete and add it again'],
      }, key);
      return;
    }
    const del = ctx.action(key, { op: 'delete-deployment', dependsOn: deps, description: `delete deployment ${live.id} to replace it`, deploymentId: live.id });
    const actions = addActions(ctx, key, m, state, [del], record, { id: live.flowId }, { id: live.packageId });
    ctx.object('Deployment', name, 'replace', { source: m.source, fields, reasons: ['deployment identity changed (--allow-replace)'], actions: [del, ...actions] }, key);
    return;
  }
  const r = reconcileExisting(ctx, key, m, state, live, entry, deps);
  const promotionError = planGate(ctx, key, m, live, entry, r);
  const o = ctx.object('Deployment', name, promotionError ? 'error' : r.change, { source: m.source, reasons: r.reasons, fields: r.fields, actions: r.actions, ...(promotionError ? { error: promotionError } : {}) }, key);
  // Set afterwards: drift is rare, and the object literals in ctx.object keep one shape each.
  if (r.drift) o.drift = r.drift;
}

function addActions(
  ctx: PlanContext,
  key: string,
  m: DeploymentManifest,
  state: DeploymentState,
  deps: string[],
  record: DeploymentRecord,
  flowRef: { id: string } | { key: string },
  packageRef: { id: string } | { key: string },
): string[] {
  const description = `add deployment of ${m.spec.package} to flow ${m.spec.flow}${state === 'running' ? ' and start it' : ''}`;
  const startNow = state === 'running';
  const add = ctx.action(
    key,
    m.spec.version !== undefined
      ? { op: 'add-deployment', dependsOn: deps, description, flowRef, packageRef, version: m.spec.version, startNow, record }
      : { op: 'add-deployment', dependsOn: deps, description, flowRef, packageRef, startNow, record },
  );
  const actions = [add];
  if (state === 'running' && m.spec.wave !== undefined) {
    let prev = add;
    for (let w = 1; w < m.spec.wave; w++) {
      prev = ctx.action(key, {
        op: 'skip-wave',
        dependsOn: [prev],
        description: `skip wave ${w} → ${w + 1}`,
        deploymentRef: { key },
        untilWave: w + 1,
      });
      actions.push(prev);
    }
  }
  // These arrays live as long as the plan and a pushed-to array keeps spare room: keep an exact copy.
  return actions.length > 1 ? actions.slice() : actions;
}

type DeploymentRecord = { specHash: string; spec: unknown; appliedState: string; contentRevision?: number; annotations?: Record<string, string> };

/** The ids that are not null, in an array of exactly that length (a filter() result keeps spare room). */
function present(a: string | null, b: string | null): string[] {
  if (a === null) return b === null ? [] : [b];
  return b === null ? [a] : [a, b];
}

interface Reconciled {
  change: Change;
  reasons: string[];
  fields: ObjectPlan['fields'];
  actions: string[];
  drift?: DriftHandling;
}

function reconcileExisting(
  ctx: PlanContext,
  key: string,
  m: DeploymentManifest,
  state: DeploymentState,
  live: V1DeploymentViewModel,
  entry: InventoryEntry,
  deps: string[],
): Reconciled {
  const ref = { id: live.id };
  const out: Reconciled = { change: 'none', reasons: [], fields: [], actions: [] };
  let prev: string[] = deps;
  const write = (op: 'start' | 'stop' | 'skip-wave' | 'update-content', description: string, untilWave = 0): void => {
    const id =
      op === 'skip-wave'
        ? ctx.action(key, { op, dependsOn: prev, description, deploymentRef: ref, untilWave })
        : ctx.action(key, { op, dependsOn: prev, description, deploymentRef: ref });
    out.actions.push(id);
    prev = [id];
  };
  // The agent holds healing of an object it healed moments ago (per-object backoff, design §4a), so
  // a fight with someone in the web console cannot become a loop: held drift is only reported.
  const held = ctx.options.driftHold?.includes(key) === true;
  const heal = ctx.options.drift === 'heal' && !held;
  const policy = held ? 'heal held by backoff' : ctx.options.drift;
  let drifted = false;
  let unhealable = false;

  if (entry.hold && state === 'running' && (live.status === 'NotStarted' || live.status === 'Stopped')) {
    // Held by a failed promotion gate: never started again by packsync, not even to heal drift,
    // until `packsync resume` releases it (design §3).
    out.reasons.push(`held by its promotion gate (wave ${entry.hold.wave}): ${entry.hold.reason}; \`packsync resume ${key} --reason ...\` releases it`);
  } else if (state === 'running' && (live.status === 'NotStarted' || live.status === 'Stopped')) {
    if (live.status === 'Stopped' && entry.appliedState === 'running') {
      drifted = true;
      out.reasons.push(`stopped outside packsync while git says running (drift: ${policy})`);
      if (heal) write('start', 'start again (heal drift)');
    } else {
      out.fields.push({ field: 'state', from: statusAsState(live), to: 'running' });
      write('start', 'start');
    }
  } else if (state === 'stopped' && live.status === 'Running') {
    if (entry.appliedState === 'stopped') {
      drifted = true;
      out.reasons.push(`started outside packsync while git says stopped (drift: ${policy})`);
      if (heal) write('stop', 'stop again (heal drift)');
    } else {
      out.fields.push({ field: 'state', from: 'running', to: 'stopped' });
      write('stop', 'stop');
    }
  } else if (state === 'pending' && live.status !== 'NotStarted') {
    // Drift no call can heal: the API cannot un-start a deployment. Reported on every pass (never
    // shown as a change, never forgotten) until git says running or stopped.
    unhealable = true;
    out.reasons.push(`is ${live.status} (wave ${live.currentWave}/${live.waveCount}) while git says pending: started outside git; a started deployment cannot return to pending, so set state: running or stopped`);
  }

  const willRun = state === 'running' && (live.status === 'Running' || out.actions.length > 0);
  const gate = m.spec.wave;
  if (gate !== undefined && willRun) {
    const current = Math.max(live.currentWave, 1);
    const target = live.waveCount > 0 ? Math.min(gate, live.waveCount) : gate;
    if (current < target) {
      out.fields.push({ field: 'wave', from: current, to: target });
      for (let w = current; w < target; w++) write('skip-wave', `skip wave ${w} → ${w + 1}`, w + 1);
    }
    const past = pastGateReason(gate, live);
    if (past) out.reasons.push(past);
  }

  const wantRev = m.spec.contentRevision;
  if (wantRev !== undefined && entry.contentRevision !== wantRev) {
    if (live.status === 'NotStarted') {
      out.reasons.push('contentRevision recorded: content is fresh until the deployment starts');
    } else if (live.contentUpdateStatus === 'Running') {
      out.reasons.push('a content update is already running');
    } else {
      out.fields.push({ field: 'contentRevision', from: entry.contentRevision ?? null, to: wantRev });
      write('update-content', `update content (revision ${wantRev})`);
    }
  }

  if (drifted) out.drift = held ? 'held' : heal ? 'healed' : 'reported';
  if (unhealable && out.actions.length === 0) {
    out.drift = 'reported';
    out.change = 'drift';
    return out;
  }
  if (drifted && !heal) {
    // Report only: keep the recorded state so the drift stays visible on every pass.
    out.change = 'drift';
    return out;
  }
  // A hold keeps the applied state the gate recorded, so releasing it makes the start a change.
  const updated: InventoryEntry = { ...entry, appliedState: entry.hold ? (entry.appliedState ?? state) : state };
  if (wantRev !== undefined && (out.actions.some((a) => a.endsWith(':update-content')) || live.status === 'NotStarted')) {
    updated.contentRevision = wantRev;
  }
  if (out.actions.length > 0 || updated.appliedState !== entry.appliedState || updated.contentRevision !== entry.contentRevision) {
    const rec = ctx.action(key, {
      op: 'record',
      dependsOn: prev,
      description: 'record applied state',
      entry: { ...updated, updatedAt: ctx.timestamp() },
      resolvesIntent: false,
    });
    out.actions.push(rec);
  }
  if (out.actions.length > 0) out.change = 'update';
  return out;
}

/**
 * When the recorded identity differs from git's only in `version` and the live deployment already
 * has the version git names (or, with none named, its package's version, which is what an add
 * without a version gives), returns the reason line; nothing needs replacing. Undefined otherwise.
 */
function versionAlreadyLive(
  ctx: PlanContext,
  entry: InventoryEntry,
  identity: { flow: string; package: string; version: string | null },
  live: V1DeploymentViewModel,
): string | undefined {
  const was = entry.spec as { flow?: unknown; package?: unknown; version?: unknown } | null | undefined;
  // The live deployment was found by the live ids of its flow and package, so names that differ are
  // renamed references (a Flow or Package moved to a new key), not another deployment.
  const renamed = was?.flow !== identity.flow || was?.package !== identity.package;
  if (renamed && (was?.version ?? null) === identity.version) {
    return `flow or package renamed in git (${String(was?.flow)}/${String(was?.package)} → ${identity.flow}/${identity.package}); the live deployment is the same: recorded in the state, no API call`;
  }
  if (identity.version !== null) {
    return identity.version === live.version ? `version "${live.version}" is already the live deployment's version: recorded in the state, no API call` : undefined;
  }
  const packageVersion = ctx.packagesById.get(live.packageId)?.productVersion;
  return packageVersion !== undefined && packageVersion === live.version
    ? `version left out: the live deployment has its package's version "${live.version}", as an add without a version would: recorded in the state, no API call`
    : undefined;
}

function statusAsState(live: V1DeploymentViewModel): DeploymentState {
  if (live.status === 'NotStarted') return 'pending';
  if (live.status === 'Stopped') return 'stopped';
  return 'running';
}
