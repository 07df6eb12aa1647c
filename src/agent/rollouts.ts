/**
 * Rollouts: one entry per managed deployment, built from the live state the pass already read
 * (flow details carry deployments and waves), then refreshed after the pass for the deployments
 * that run or were just written, so the board shows where each one is now and not where it was
 * before the pass. The refresh reads at most a bounded number of deployments and never fails a pass.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { V1DeploymentViewModel, V1WaveViewModel } from '../api/wire/index.js';
import type { Inventory } from '../state/inventory-types.js';
import type { LiveState } from '../live/types.js';
import type { DesiredModel } from '../manifests/model.js';
import { mapLimit } from '../util/map-limit.js';
import type { Rollout } from './http/status-types.js';

/** Deployments whose current wave (status, live data) is read after a pass; the rest keep the pass's snapshot. */
export const ROLLOUT_REFRESH_LIMIT = 50;

/** What building a rollout needs of the live state, indexed once per build (not a scan per deployment). */
interface RolloutLive {
  waves: Map<string, V1WaveViewModel[]>;
  tenantNames: Map<string, string>;
}

function rolloutLive(live: LiveState): RolloutLive {
  return {
    waves: new Map(live.flows.map((f) => [f.id, f.details?.waves ?? []])),
    tenantNames: new Map(live.tenants.map((t) => [t.id, t.displayName || t.defaultDomain])),
  };
}

/** One deployment as the board names it: its key, flow, package, app and wave gate. */
interface RolloutOf {
  key: string;
  flow: string;
  pkg: string;
  gateWave: number | undefined;
  app: string;
}

/** Pure: the rollouts of the managed deployments as the live state shows them. */
export function buildRollouts(desired: DesiredModel, live: LiveState, inventory: Inventory): Rollout[] {
  const byId = new Map(live.deployments.map((d) => [d.id, d]));
  const packages = new Map(live.packages.map((p) => [p.id, p]));
  const ctx = rolloutLive(live);
  const out: Rollout[] = [];
  for (const m of desired.deployments) {
    const key = `Deployment/${m.metadata.name}`;
    const entry = inventory.objects[key];
    const d = entry ? byId.get(entry.id) : undefined;
    if (!entry || !d) continue;
    const app = packages.get(d.packageId)?.productName ?? m.spec.package;
    out.push(rolloutOf({ key, flow: m.spec.flow, pkg: m.spec.package, gateWave: m.spec.wave, app }, d, ctx));
  }
  // A deployment whose manifest left git still runs until pruned: it stays on the board, marked.
  const desiredKeys = new Set(desired.deployments.map((m) => `Deployment/${m.metadata.name}`));
  for (const [key, entry] of Object.entries(inventory.objects)) {
    if (entry.kind !== 'Deployment' || key.includes('#') || desiredKeys.has(key) || entry.superseded !== undefined) continue;
    const d = byId.get(entry.id);
    if (!d) continue;
    const spec = (entry.spec ?? {}) as { flow?: unknown; package?: unknown };
    const flow = typeof spec.flow === 'string' ? spec.flow : d.flowId;
    const pkg = typeof spec.package === 'string' ? spec.package : d.packageId;
    const app = packages.get(d.packageId)?.productName ?? pkg;
    out.push({ ...rolloutOf({ key, flow, pkg, gateWave: undefined, app }, d, ctx), orphaned: true });
  }
  return out;
}

/**
 * Pure: the deployments the service started in owned flows (`/status` `serviceStarted`) as rollouts,
 * named `Flow/NAME@VERSION` as their gates, events and commands name them. They are never rows of
 * git's board; the agent reads them with its rollouts only to export their series (docs/agent.md).
 */
export function serviceRollouts(started: readonly { flow: string; id: string; version: string }[], live: LiveState): Rollout[] {
  const byId = new Map(live.deployments.map((d) => [d.id, d]));
  for (const f of live.flows) for (const d of f.details?.deployments ?? []) if (!byId.has(d.id)) byId.set(d.id, d);
  const packages = new Map(live.packages.map((p) => [p.id, p]));
  const ctx = rolloutLive(live);
  return started.flatMap((s) => {
    const d = byId.get(s.id);
    if (!d) return [];
    const flow = s.flow.replace(/^Flow\//, '');
    const app = packages.get(d.packageId)?.productName ?? d.packageId;
    return [rolloutOf({ key: `${s.flow}@${s.version}`, flow, pkg: d.packageId, gateWave: undefined, app }, d, ctx)];
  });
}

function rolloutOf(o: RolloutOf, d: V1DeploymentViewModel, ctx: RolloutLive): Rollout {
  const r: Rollout = {
    deployment: o.key,
    id: d.id,
    flow: o.flow,
    package: o.pkg,
    app: o.app,
    version: d.version,
    status: d.status,
    currentWave: d.currentWave,
    waveCount: d.waveCount,
    startedAt: d.startedAt,
  };
  const gate = gateOf(o.gateWave, d);
  if (gate) r.gate = gate;
  const waves = ctx.waves.get(d.flowId) ?? [];
  const current = waves.find((w) => w.index === d.currentWave);
  if (current && d.status === 'Running') r.soakHours = current.delayHours;
  if (waves.length > 0 && d.status !== 'NotStarted') r.tenants = tenantsOf(waves, d, ctx.tenantNames);
  return r;
}

/** Where a running deployment stands against its `wave:` gate. */
function gateOf(gateWave: number | undefined, d: V1DeploymentViewModel): Rollout['gate'] {
  if (gateWave === undefined || d.status !== 'Running') return undefined;
  const target = d.waveCount > 0 ? Math.min(gateWave, d.waveCount) : gateWave;
  return {
    wave: gateWave,
    verdict: d.currentWave === target && target < d.waveCount ? 'holding' : d.currentWave > target ? 'passed' : 'before',
  };
}

function tenantsOf(
  waves: readonly V1WaveViewModel[],
  d: V1DeploymentViewModel,
  names: Map<string, string>,
): NonNullable<Rollout['tenants']> {
  return [...waves]
    .sort((a, b) => a.index - b.index)
    .flatMap((w) =>
      w.tenantIds.map((tenantId) => ({
        tenantId,
        tenant: names.get(tenantId) ?? tenantId,
        wave: w.index,
        status: d.status === 'Completed' || w.index < d.currentWave ? ('Completed' as const) : ('Pending' as const),
      })),
    );
}

export interface RefreshInput {
  api: PacksyncApi;
  rollouts: Rollout[];
  /** Deployments written this pass. */
  touched: ReadonlySet<string>;
  desired: DesiredModel;
  live: LiveState;
  /** The inventory as the pass left it: a deployment added this pass is in it, not yet in `live`. */
  inventory?: Inventory;
  signal?: AbortSignal;
}

/** What a rollout is read again from: its key and id, and how the board names it. */
type Candidate = Pick<Rollout, 'deployment' | 'id' | 'flow' | 'package' | 'app' | 'orphaned'>;

/**
 * Reads the deployments that run or were written this pass again, and the current wave of each
 * running one (tenant statuses and install counts). Errors leave the snapshot's view in place. A
 * deployment this pass added (in the inventory, not in the snapshot read before the pass) is read
 * too and joins the board at once (regression: it was missing until the next pass); if that read
 * fails it is left out, as the snapshot does not know it.
 */
export async function refreshRollouts(input: RefreshInput): Promise<Rollout[]> {
  const { rollouts, touched } = input;
  const gates = new Map(input.desired.deployments.map((m) => [`Deployment/${m.metadata.name}`, m.spec.wave]));
  const ctx = rolloutLive(input.live);
  const added = addedThisPass(input);
  const pick: Candidate[] = [...added, ...rollouts.filter((r) => r.status === 'Running' || touched.has(r.deployment))].slice(
    0,
    ROLLOUT_REFRESH_LIMIT,
  );
  const fresh = await mapLimit(pick, 4, (r) => refreshOne(input, r, gates.get(r.deployment), ctx).catch(() => undefined));
  const byKey = new Map(fresh.filter((r) => r !== undefined).map((r) => [r.deployment, r]));
  const known = rollouts.map((r) => byKey.get(r.deployment) ?? r);
  return [...known, ...added.flatMap((c) => byKey.get(c.deployment) ?? [])];
}

/** Deployments of git written this pass whose id the inventory has and the pass's snapshot does not. */
function addedThisPass(input: RefreshInput): Candidate[] {
  const { inventory, touched } = input;
  if (!inventory) return [];
  const onBoard = new Set(input.rollouts.map((r) => r.deployment));
  const apps = new Map(input.desired.packages.map((p) => [p.metadata.name, p.spec.catalog?.app ?? p.spec.custom?.name]));
  const out: Candidate[] = [];
  for (const m of input.desired.deployments) {
    const key = `Deployment/${m.metadata.name}`;
    const id = inventory.objects[key]?.id;
    if (!touched.has(key) || onBoard.has(key) || !id) continue;
    out.push({ deployment: key, id, flow: m.spec.flow, package: m.spec.package, app: apps.get(m.spec.package) ?? m.spec.package });
  }
  return out;
}

async function refreshOne(input: RefreshInput, r: Candidate, gateWave: number | undefined, ctx: RolloutLive): Promise<Rollout> {
  const { api } = input;
  const opts = input.signal ? { signal: input.signal } : {};
  const d = await api.getDeployment(r.id, opts);
  const next = rolloutOf({ key: r.deployment, flow: r.flow, pkg: r.package, gateWave, app: r.app }, d, ctx);
  if (r.orphaned) next.orphaned = true;
  if (d.status !== 'Running' || !d.currentWaveId) return next;
  const [wave, data] = await Promise.all([api.getWave(d.currentWaveId, opts), api.getWaveLive(d.currentWaveId, opts)]);
  const status = new Map(wave.tenants.map((t) => [t.tenantId, t.status]));
  const counts = new Map(data.tenants.map((t) => [t.tenantId, t]));
  for (const t of next.tenants ?? []) {
    if (t.wave !== d.currentWave) continue;
    t.status = status.get(t.tenantId) ?? t.status;
    const c = counts.get(t.tenantId);
    if (c) Object.assign(t, { installed: c.installed, failed: c.failed });
  }
  const installed = data.tenants.reduce((n, t) => n + t.installed, 0);
  const failed = data.tenants.reduce((n, t) => n + t.failed, 0);
  if (installed + failed > 0) next.successRate = Math.round((installed / (installed + failed)) * 1000) / 10;
  return next;
}
