/** The plan's record of change windows (docs/policy.md), a type module both the plan and its context import. */

/** One deployment under a window this pass: shown by plan, status and the agent's wake-up. */
export interface WindowState {
  key: string;
  timezone: string;
  open: boolean;
  /** When closed: the instant the next window opens (ISO, service clock), null when none is near. */
  until?: string | null;
  /** When closed: `waits for window Mon 08:00 Europe/Oslo (2026-11-30)`, or the freeze and its reason first. */
  reason?: string;
  /** The forward moves this pass holds back (descriptions); empty when nothing wanted to move. */
  held?: string[];
  /** Set when `--ignore-windows` moved it anyway (break glass). */
  ignored?: { actor: string; reason: string };
}

/** The keys of the deployments whose forward moves a closed window held this pass. */
export function windowHeldKeys(plan: { windows?: WindowState[] }): Set<string> {
  return new Set((plan.windows ?? []).filter((w) => (w.held?.length ?? 0) > 0).map((w) => w.key));
}
