/**
 * One expired Baseline exception as the agent shows it everywhere (docs/baselines.md, "Exceptions"):
 * the `ExceptionExpired` event and its notification's link, the status page's and the terminal view's
 * "needs attention". One key, so a notification's `#obj-…` link finds the page's item.
 */
import type { ExpiredException } from '../plan/types.js';

/** `Baseline/NAME/APP[/RING]`: the event's object and the page anchor's key. */
export function expiredExceptionKey(e: ExpiredException): string {
  return `Baseline/${e.baseline}/${e.app}${e.ring !== undefined ? `/${e.ring}` : ''}`;
}

/** The sentence: what expired, whose it was and why, and that the baseline applies again. */
export function expiredExceptionText(e: ExpiredException): string {
  const where = e.ring !== undefined ? ` in ring ${e.ring}` : '';
  return `the exception for ${e.app}${where} (${e.action}, owner ${e.owner}: ${e.reason}) expired on ${e.expires}; the baseline applies to it again`;
}
