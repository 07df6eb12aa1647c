/**
 * Blast radius (docs/policy.md): how many tenants and devices each action that moves a rollout
 * reaches, from the flow's waves, their tenants and each tenant's managed devices as the service
 * reports them (wave details). Pure: the device counts are read by the engine and passed in. An
 * action on a flow whose waves are not known yet (a flow this plan creates) gets no figures.
 */
import type { LiveState } from '../live/types.js';
import { OP } from './ops.js';
import type { Plan, PlanAction } from './types.js';
import { formatCount } from '../util/count-format.js';

/** Managed devices by tenant id, from wave details (`deviceCount`); a tenant absent counts 0. */
export type TenantDevices = ReadonlyMap<string, number>;

export interface Reach {
  tenants: number;
  devices: number;
  /** `reaches 3 tenants (wave 1 of 3), 412 devices` */
  text: string;
  /** The tenant ids reached (for the plan's total: a tenant reached twice counts once). */
  tenantIds: string[];
}

/**
 * Lookups built once per plan, each on first use: a plan of 15,000 objects must not search lists
 * per action, and a plan that only adds deployments (patch-tuesday's 6,000) never asks for a live
 * deployment by id.
 */
class Index {
  /** Flow id of each deployment key this plan adds (with a known flow). */
  readonly addedOn = new Map<string, string>();
  /** The highest wave this plan's skip-waves take each deployment to (by `refKey`). */
  readonly skippedTo = new Map<string, number>();
  #deployments: Map<string, LiveState['deployments'][number]> | undefined;
  #flows: Map<string, LiveState['flows'][number]> | undefined;

  constructor(
    plan: Plan,
    private readonly live: LiveState,
  ) {
    for (const a of plan.actions) {
      if (a.op === OP.addDeployment && 'id' in a.flowRef) this.addedOn.set(a.key, a.flowRef.id);
      else if (a.op === OP.skipWave) {
        const k = refKey(a.deploymentRef);
        this.skippedTo.set(k, Math.max(this.skippedTo.get(k) ?? 0, a.untilWave));
      }
    }
  }

  deployment(id: string): LiveState['deployments'][number] | undefined {
    return (this.#deployments ??= byId(this.live.deployments)).get(id);
  }

  flow(id: string): LiveState['flows'][number] | undefined {
    return (this.#flows ??= byId(this.live.flows)).get(id);
  }
}

/** One deployment as its actions name it: a live id, or the key of one this plan adds. */
function refKey(ref: { id: string } | { key: string }): string {
  return 'id' in ref ? `id:${ref.id}` : `key:${ref.key}`;
}

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  const m = new Map<string, T>();
  for (const x of items) m.set(x.id, x);
  return m;
}

/** Whether an action moves a rollout forward (the actions blast radius is told for). */
export function movesRollout(a: PlanAction): boolean {
  return (a.op === OP.addDeployment && a.startNow) || a.op === OP.start || a.op === OP.skipWave || a.op === OP.updateContent;
}

/** Moving actions whose reach is not known (a flow this plan creates has no waves to read yet). */
export function unknownReach(plan: Plan): number {
  return plan.actions.filter((a) => movesRollout(a) && a.tenants === undefined).length;
}

/** Flow ids of the actions that may move a rollout: the engine reads their waves' device counts. */
export function movingFlowIds(plan: Plan, live: LiveState): string[] {
  const ix = new Index(plan, live);
  const ids = new Set<string>();
  for (const a of plan.actions) {
    const flowId = flowOf(a, ix);
    if (flowId) ids.add(flowId);
  }
  return [...ids];
}

function flowOf(a: PlanAction, ix: Index): string | undefined {
  if (a.op === OP.addDeployment) return a.startNow && 'id' in a.flowRef ? a.flowRef.id : undefined;
  if (a.op !== OP.start && a.op !== OP.skipWave && a.op !== OP.updateContent) return undefined;
  // A deployment this plan adds (a key, not an id yet): its add names the flow.
  return 'id' in a.deploymentRef ? ix.deployment(a.deploymentRef.id)?.flowId : ix.addedOn.get(a.deploymentRef.key);
}

/** The waves (1-based, inclusive range) an action reaches, or undefined for one that reaches none. */
function wavesOf(a: PlanAction, ix: Index): [number, number] | undefined {
  const current = 'deploymentRef' in a && 'id' in a.deploymentRef ? ix.deployment(a.deploymentRef.id) : undefined;
  switch (a.op) {
    case OP.addDeployment:
      return [1, 1];
    case OP.start: {
      const w = Math.max(current?.currentWave ?? 1, 1);
      return [w, w];
    }
    case OP.skipWave:
      return [a.untilWave, a.untilWave];
    case OP.updateContent: {
      // New content goes to every tenant the rollout has reached when it runs: after this plan's
      // skip-waves of the same deployment (it runs after them), not only the live wave.
      const skipped = ix.skippedTo.get(refKey(a.deploymentRef)) ?? 0;
      return [1, Math.max(current?.currentWave ?? 1, skipped, 1)];
    }
    default:
      return undefined;
  }
}

/** Annotates each moving action (`tenants`, `devices`, its description) and the summary. */
export function annotateReach(plan: Plan, live: LiveState, devices: TenantDevices): void {
  const ix = new Index(plan, live);
  const all = new Set<string>();
  let any = false;
  const byKey = new Map<string, string[]>();
  // One figure per flow and range of waves: a flow's four new deployments reach the same tenants.
  const known = new Map<string, Reach>();
  for (const a of plan.actions) {
    const flowId = flowOf(a, ix);
    const range = flowId ? wavesOf(a, ix) : undefined;
    const waves = flowId ? ix.flow(flowId)?.details?.waves : undefined;
    if (!range || !waves || waves.length === 0 || range[0] > waves.length) continue;
    const at = `${flowId}:${range[0]}:${range[1]}`;
    let reach = known.get(at);
    if (!reach) {
      known.set(at, (reach = reachOf(waves, range, devices)));
      for (const t of reach.tenantIds) all.add(t);
    }
    a.tenants = reach.tenants;
    a.devices = reach.devices;
    a.description = `${a.description}: ${reach.text}`;
    any = true;
    const texts = byKey.get(a.key);
    if (texts) texts.push(reach.text);
    else byKey.set(a.key, [reach.text]);
  }
  if (!any) return;
  plan.summary.tenants = all.size;
  plan.summary.devices = [...all].reduce((n, t) => n + (devices.get(t) ?? 0), 0);
  for (const o of plan.objects) {
    const texts = byKey.get(o.key);
    if (texts) o.reach = texts;
  }
}

function reachOf(waves: { index: number; tenantIds: string[] }[], [from, to]: [number, number], devices: TenantDevices): Reach {
  const sorted = [...waves].sort((a, b) => a.index - b.index);
  const last = Math.min(to, sorted.length);
  const ids = new Set<string>();
  for (let w = from; w <= last; w++) for (const t of sorted[w - 1]?.tenantIds ?? []) ids.add(t);
  const tenantIds = [...ids];
  const count = tenantIds.reduce((n, t) => n + (devices.get(t) ?? 0), 0);
  const span = from === last ? `wave ${from} of ${sorted.length}` : `waves ${from}-${last} of ${sorted.length}`;
  const text = `reaches ${tenantIds.length} tenant${tenantIds.length === 1 ? '' : 's'} (${span}), ${formatCount(count)} device${count === 1 ? '' : 's'}`;
  return { tenants: tenantIds.length, devices: count, text, tenantIds };
}
