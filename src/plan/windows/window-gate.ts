/**
 * The planner's side of change windows and freezes (docs/policy.md): whether this pass may move one
 * deployment's rollout forward (start, add-deployment that starts, skip-wave, update-content), and
 * what the plan says when it may not. A stop, and anything else that is not a forward move, is never
 * held back. Time is the service's clock (`LiveState.serviceTime`); the planner refuses to plan at
 * all when windows exist and that clock is unknown (planner.ts), so "no clock" is never "open".
 */
import { DEFAULT_DEPLOYMENT_STATE } from '../../manifests/model.js';
import type { DeploymentManifest, WindowsSpec } from '../../manifests/model.js';
import { idOf } from '../context.js';
import type { PlanContext } from '../context.js';
import { OP } from '../ops.js';
import { windowVerdict, windowsFor } from './windows.js';
import type { WindowVerdict } from './windows.js';
import type { WindowState } from './window-types.js';

export type { WindowState } from './window-types.js';

/** Ops that move a rollout forward: held back outside a window (a stop never is). */
export const FORWARD_OPS: ReadonlySet<string> = new Set([OP.start, OP.skipWave, OP.updateContent]);

/** The windows that govern a deployment this pass (windows.ts `windowsFor`). */
export function windowsOf(ctx: PlanContext, m: DeploymentManifest): WindowsSpec | undefined {
  return windowsFor(m, ctx.flowWindows);
}

const verdicts = new WeakMap<PlanContext, Map<WindowsSpec, WindowVerdict>>();
const states = new WeakMap<PlanContext, Map<string, WindowState>>();

/** The deployment's one entry in `ctx.windows` (a later decision of the same pass fills the same entry). */
function windowState(ctx: PlanContext, key: string): WindowState {
  let byKey = states.get(ctx);
  if (!byKey) states.set(ctx, (byKey = new Map<string, WindowState>()));
  let state = byKey.get(key);
  if (!state) {
    state = { key, timezone: '', open: true };
    byKey.set(key, state);
    ctx.windows.push(state);
  }
  return state;
}

/** The verdict for a deployment now, or undefined when no window governs it. */
export function windowNow(ctx: PlanContext, m: DeploymentManifest): { spec: WindowsSpec; verdict: WindowVerdict } | undefined {
  const spec = windowsOf(ctx, m);
  if (!spec) return undefined;
  let cache = verdicts.get(ctx);
  if (!cache) verdicts.set(ctx, (cache = new Map<WindowsSpec, WindowVerdict>()));
  let verdict = cache.get(spec);
  if (!verdict) {
    // planner.ts refuses to plan without the service's clock when any window exists.
    verdict = windowVerdict(spec, new Date(ctx.live.serviceTime ?? ctx.now.toISOString()));
    cache.set(spec, verdict);
  }
  return { spec, verdict };
}

/** What a window decides for one deployment's forward moves. */
export interface ForwardGate {
  hold?: string;
  breakGlass?: { actor: string; reason: string; window: string };
}

/** The answer for a deployment no window governs (most of them): one shared value. */
const UNGATED: ForwardGate = Object.freeze({});

/**
 * Decides the forward moves of one deployment: `hold` (a reason line) when the window is closed and
 * glass is not broken; `breakGlass` when `--ignore-windows` lets them through a closed window.
 * Records the deployment's window state for the plan either way.
 */
export function gateForward(ctx: PlanContext, key: string, m: DeploymentManifest, moves: string[]): ForwardGate {
  const w = windowNow(ctx, m);
  if (!w) return UNGATED;
  const state = windowState(ctx, key);
  state.timezone = w.spec.timezone;
  state.open = w.verdict.open;
  if (w.verdict.open) return {};
  state.until = w.verdict.until;
  state.reason = w.verdict.reason;
  if (moves.length === 0) return {};
  const ignore = ctx.options.ignoreWindows;
  if (ignore) {
    state.ignored = { actor: ignore.actor, reason: ignore.reason };
    return { breakGlass: { ...state.ignored, window: w.verdict.reason } };
  }
  state.held = moves;
  return { hold: w.verdict.reason };
}

/** The reason line of moves made through a closed window (break glass). */
export function breakGlassLine(b: { actor: string; reason: string; window: string }): string {
  return `window closed (${b.window}): moved anyway, --ignore-windows by ${b.actor}: ${b.reason}`;
}

/**
 * Records a break-glass move in the deployment's state entry (its gate log), after `after`. `wave` is
 * the wave the rollout moved from (its live current wave; 0 for a start), as `promote --ignore-windows` logs it.
 */
export function breakGlassAction(
  ctx: PlanContext,
  key: string,
  after: string[],
  b: { actor: string; reason: string; window: string },
  wave: number,
): string {
  const at = ctx.live.serviceTime ?? ctx.timestamp();
  return ctx.action(key, {
    op: OP.gate,
    dependsOn: after,
    description: `record the break-glass move (--ignore-windows by ${b.actor})`,
    set: { log: { at, action: 'ignore-windows', wave, by: 'command', reason: `${b.actor}: ${b.reason} (${b.window})` } },
    quiet: false,
  });
}

/** The windows to record on a deployment's state entry (for `promote`), as an object to assign. */
export function windowsRecord(ctx: PlanContext, m: DeploymentManifest): { windows?: WindowsSpec } {
  const windows = windowsOf(ctx, m);
  return windows ? { windows } : {};
}

/** An add-deployment that starts moves a rollout forward: outside the window the object waits (true: nothing is added). */
export function holdAdd(ctx: PlanContext, key: string, m: DeploymentManifest, state: string): boolean {
  const hold = state === 'running' ? gateForward(ctx, key, m, ['add deployment and start it']).hold : undefined;
  if (hold !== undefined) ctx.object('Deployment', m.metadata.name, 'waiting', { source: m.source, reasons: [hold] }, key);
  return hold !== undefined;
}

/** `--ignore-windows` moving a deployment through its closed window now: who, why and the window; undefined otherwise. */
function glassThroughClosed(ctx: PlanContext, m: DeploymentManifest): { actor: string; reason: string; window: string } | undefined {
  const w = windowNow(ctx, m);
  const ignore = ctx.options.ignoreWindows;
  return w && !w.verdict.open && ignore ? { ...ignore, window: w.verdict.reason } : undefined;
}

/** The reason line of an add that starts through a closed window (break glass), for the object's reasons; undefined otherwise. */
export function addBreakGlassLine(ctx: PlanContext, m: DeploymentManifest, state: string): string | undefined {
  const glass = state === 'running' ? glassThroughClosed(ctx, m) : undefined;
  return glass && breakGlassLine(glass);
}

/** After an add that starts through a closed window (break glass): its record in the state. */
export function addBreakGlass(ctx: PlanContext, key: string, m: DeploymentManifest, actions: string[]): void {
  const glass = glassThroughClosed(ctx, m);
  // A new deployment has no wave yet: its start is made from wave 0.
  if (glass) actions.push(breakGlassAction(ctx, key, actions.slice(-1), glass, 0));
}

const REPLACE_MOVE = 'add deployment and start it on the new flow';

/**
 * A flow replacement deletes the old flow, and its rollouts with it, once the deployments are added
 * (and started) on the new flow. While one of them may not start (a closed window, glass not
 * broken), the whole replacement waits: deleting the old flow would leave its rollouts gone until
 * the window opens. Returns the first hold's reason, after recording each held deployment and the
 * flow itself as held (so the agent wakes at the window's start), or undefined.
 */
export function holdReplacement(ctx: PlanContext, flowKey: string, flowName: string, newFlowId?: string): string | undefined {
  let first: { reason: string; state: WindowState } | undefined;
  for (const m of deploymentsOfFlow(ctx, flowName)) {
    if (m.spec.suspend || (m.spec.state ?? DEFAULT_DEPLOYMENT_STATE) !== 'running') continue;
    if (newFlowId !== undefined && liveOn(ctx, newFlowId, m)) continue;
    const key = `Deployment/${m.metadata.name}`;
    const hold = gateForward(ctx, key, m, [REPLACE_MOVE]).hold;
    if (hold !== undefined && !first) first = { reason: hold, state: windowState(ctx, key) };
  }
  if (!first) return undefined;
  const { timezone, until, reason } = first.state;
  Object.assign(windowState(ctx, flowKey), { timezone, open: false, until, reason, held: ['replace the flow'] });
  return first.reason;
}

const byFlow = new WeakMap<PlanContext, Map<string, DeploymentManifest[]>>();

/** The desired deployments of a flow, indexed once per plan when a replacement first asks (a fleet may replace many flows at once). */
function deploymentsOfFlow(ctx: PlanContext, flowName: string): readonly DeploymentManifest[] {
  let index = byFlow.get(ctx);
  if (!index) {
    index = new Map();
    for (const m of ctx.desiredDeployments) {
      const list = index.get(m.spec.flow);
      if (list) list.push(m);
      else index.set(m.spec.flow, [m]);
    }
    byFlow.set(ctx, index);
  }
  return index.get(flowName) ?? [];
}

/** Whether the deployment is live on `flowId` already (its package as planned this pass): no add is left to hold. */
function liveOn(ctx: PlanContext, flowId: string, m: DeploymentManifest): boolean {
  const pkg = ctx.packageRefs.get(m.spec.package);
  const packageId = pkg && !pkg.isNew ? idOf(pkg.ref) : undefined;
  return packageId !== undefined && ctx.deploymentsByFlowPackage.has(`${flowId}|${packageId}`);
}
