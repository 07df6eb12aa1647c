/**
 * A saved plan's change windows at apply time (docs/policy.md, "Saved plans"): a plan made while a
 * window was open holds none of its moves, so applying it after the window closed would start
 * rollouts outside it. Each window the plan judged open is judged again by the service's clock now.
 */
import type { DesiredModel } from '../../manifests/model.js';
import { movesRollout } from '../reach.js';
import type { Plan } from '../types.js';
import { flowWindowsOf, windowVerdict, windowsFor } from './windows.js';

/** `Deployment/x: waits for window …` for each deployment with forward moves whose window closed since the plan; empty when none. */
export function windowsClosedSince(plan: Plan, desired: DesiredModel, now: Date): string[] {
  // Break glass was asked for when the plan was made: its moves go through closed windows anyway.
  if (plan.options.ignoreWindows || !plan.windows?.length) return [];
  // Only moves a window holds are judged again: a stop (the emergency brake), a delete or a record goes through.
  const moving = new Set(plan.actions.filter(movesRollout).map((a) => a.key));
  const flowWindows = flowWindowsOf(desired.flows);
  const byKey = new Map(desired.deployments.map((d) => [`Deployment/${d.metadata.name}`, d]));
  const closed: string[] = [];
  for (const w of plan.windows) {
    const m = byKey.get(w.key);
    if (!w.open || !moving.has(w.key) || !m) continue;
    const spec = windowsFor(m, flowWindows);
    if (!spec) continue;
    const verdict = windowVerdict(spec, now);
    if (!verdict.open) closed.push(`${w.key}: ${verdict.reason ?? 'its window is closed'}`);
  }
  return closed;
}
