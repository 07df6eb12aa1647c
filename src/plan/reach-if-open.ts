/**
 * The two-person rule judges a revision whole (docs/policy.md): "until then the revision waits …
 * nothing of it is applied". A move a closed change window holds back is still part of the
 * revision, and reaches its tenants as soon as the window opens; so when a window holds moves, the
 * revision is planned once more as if every window were open, and that plan's reach is kept on the
 * plan (`reachIfOpen`). Pure, and only when a window holds something: one more plan of the same
 * inputs, nothing read (the tenants come from the flows' waves already read; devices are not needed).
 */
import { plan } from './planner.js';
import type { PlanInput } from './planner.js';
import { annotateReach, unknownReach } from './reach.js';
import type { TenantDevices } from './reach.js';
import type { Plan } from './types.js';
import { windowHeldKeys } from './windows/window-types.js';

/** The probe's break glass: it lets the held moves into a plan that is measured, never applied. */
const OPEN = { actor: 'packsync', reason: 'reach of the moves a change window holds (never applied)' };

export function addReachIfOpen(p: Plan, input: PlanInput, devices: TenantDevices): void {
  if (input.options.ignoreWindows || windowHeldKeys(p).size === 0) return;
  const open = plan({ ...input, options: { ...input.options, ignoreWindows: OPEN } });
  annotateReach(open, input.live, devices);
  p.reachIfOpen = {
    tenants: Math.max(open.summary.tenants ?? 0, p.summary.tenants ?? 0),
    unknown: Math.max(unknownReach(open), unknownReach(p)),
  };
}
