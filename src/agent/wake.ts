/**
 * When the loop looks again after a converged pass (docs/agent.md, docs/policy.md): held drift when
 * its heal hold ends, a promotion gate's soak or deadline when it ends, a change window when it
 * opens, whichever is first, and not only at the next external trigger. Pure: times in, a wait out.
 */

/**
 * `gateDelay` is on the service's clock (a gate's soak, a window's start), turned local by `toLocal`;
 * one second late (the service's Date has second resolution) and at most a day ahead (a week-long
 * deadline must not overflow the timer: it is looked at daily).
 */
export function nextWake(
  now: number,
  gateDelay: number | null,
  healAt: number | null,
  toLocal: (serviceMs: number) => number,
): { inMs: number; reason: string } | null {
  const gateAt = gateDelay === null ? null : now + Math.min(toLocal(gateDelay), 86_400_000) + 1000;
  if (gateAt !== null && (healAt === null || gateAt < healAt))
    return { inMs: gateAt - now, reason: 'a promotion gate ends its soak or deadline, or a change window opens' };
  return healAt !== null ? { inMs: healAt - now + 10, reason: 'heal backoff elapsed' } : null;
}
