/**
 * `Flow.spec.promotion` (docs/reconcile.md, "Service-driven flows"): the promotion gate over each
 * deployment the service started by itself in an owned flow. Judged exactly as a Deployment's gate
 * (plan-promotion.ts), addressed as `Flow/NAME@VERSION`; its clock, hold and log live on the flow's
 * state entry (`serviceGates`, by deployment id), since no state key owns the deployment itself.
 */
import type { V1DeploymentViewModel } from '../../api/wire/index.js';
import type { DeploymentManifest, FlowManifest } from '../../manifests/model.js';
import type { InventoryEntry } from '../../state/inventory-types.js';
import type { PlanContext } from '../context.js';
import { OP } from '../ops.js';
import { planGate } from './plan-promotion.js';
import type { GateTarget } from './plan-promotion.js';
import { serviceStarted } from '../kinds/service-driven.js';
import { gateForward } from '../windows/window-gate.js';

/** The key a service-started deployment's gate is addressed by (`promote`, `resume`, events). */
export const serviceGateKey = (flow: string, version: string): string => `Flow/${flow}@${version}`;

function restart(ctx: PlanContext, key: string, m: DeploymentManifest, d: V1DeploymentViewModel, t: GateTarget): void {
  const window = gateForward(ctx, key, m, ['start']);
  if (window.hold !== undefined) {
    t.reasons.push(`resumed; the start ${window.hold}`);
    t.change = 'waiting';
    return;
  }
  t.actions.push(
    ctx.action(key, {
      op: OP.start,
      dependsOn: [],
      description: `start again (resumed after its promotion gate stopped it)`,
      deploymentRef: { id: d.id },
    }),
  );
  t.fields.push({ field: 'state', from: 'stopped', to: 'running' });
  t.reasons.push('resumed: the service started this version; its promotion gate stopped it and `packsync resume` released it');
  t.change = 'update';
}

export function planServiceGates(ctx: PlanContext, flows: readonly FlowManifest[]): void {
  for (const f of flows) {
    if (!f.spec.promotion || f.spec.suspend) continue;
    const entry = ctx.entry(`Flow/${f.metadata.name}`);
    if (!entry) continue;
    for (const d of serviceStarted(ctx, entry.id)) planOne(ctx, f, entry, d);
  }
}

function planOne(ctx: PlanContext, f: FlowManifest, flowEntry: InventoryEntry, d: V1DeploymentViewModel): void {
  const name = `${f.metadata.name}@${d.version}`;
  const key = serviceGateKey(f.metadata.name, d.version);
  const gate = flowEntry.serviceGates?.[d.id];
  // The gate judges the deployment as if a Deployment manifest named it: running, in the flow's windows.
  const m = {
    kind: 'Deployment',
    apiVersion: f.apiVersion,
    metadata: { name },
    spec: { flow: f.metadata.name, package: '', state: 'running', promotion: f.spec.promotion },
    source: f.source,
  } as unknown as DeploymentManifest;
  const { promotion: _p, hold: _h, gateLog: _l, serviceGates: _s, ...base } = flowEntry;
  const entry: InventoryEntry = {
    ...base,
    kind: 'Deployment',
    name,
    id: d.id,
    ...(gate?.promotion ? { promotion: gate.promotion } : {}),
    ...(gate?.hold ? { hold: gate.hold } : {}),
    ...(gate?.gateLog ? { gateLog: gate.gateLog } : {}),
  };
  const t: GateTarget = { change: 'none', reasons: [], fields: [], actions: [] };
  // Released by `resume` after the gate stopped it: started again (a forward move: in its flow's windows).
  if (!gate?.hold && gate?.gateLog?.at(-1)?.action === 'resume' && d.status === 'Stopped') restart(ctx, key, m, d, t);
  const first = ctx.actions.length;
  const error = planGate(ctx, key, m, { live: d, entry }, t);
  // Gate bookkeeping of this deployment goes to its flow's entry (run-action.ts).
  for (const a of ctx.actions.slice(first))
    if (a.op === OP.gate) a.service = { flow: `Flow/${f.metadata.name}`, deploymentId: d.id, version: d.version };
  if (t.actions.length === 0 && t.reasons.length === 0 && !error) return;
  ctx.object(
    'Flow',
    name,
    error ? 'error' : t.change,
    { source: f.source, reasons: t.reasons, fields: t.fields, actions: t.actions, ...(error ? { error } : {}) },
    key,
  );
}
