/**
 * What the agent shows of the rollout policy (docs/policy.md): the next change window per governed
 * deployment and the approvals a waiting revision lacks, in `/status` (`windows`, `approvals`) and
 * as one section of the status page; and when a window opens, so the loop can wake for it (a
 * timer at the window's start, no polling).
 */
import type { Plan } from '../plan/types.js';
import type { WindowState } from '../plan/windows/window-types.js';
import type { ApprovalVerdict } from './approvals.js';
import { esc } from './http/html-escape.js';

/** Service-clock milliseconds from the plan's clock until the earliest window that opens for held work (a pass then, no polling); null when none. */
export function windowWakeDelay(plan: Pick<Plan, 'windows'>, serviceNow: string | undefined): number | null {
  if (!serviceNow) return null;
  let next: number | null = null;
  for (const w of plan.windows ?? []) {
    if (!w.held || w.held.length === 0 || !w.until) continue;
    const delay = Date.parse(w.until) - Date.parse(serviceNow);
    if (next === null || delay < next) next = Math.max(0, delay);
  }
  return next;
}

/** The earlier of two delays (null: none); the agent wakes for a gate's soak or a window's start, whichever comes first. */
export function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/** The status page's section: one row per deployment under a window, then the approvals a revision waits for. */
export function policySection(windows: readonly WindowState[], approvals: ApprovalVerdict | null): string {
  const parts: string[] = [];
  if (approvals && !approvals.ok)
    parts.push(
      `<h2>Waiting for approval</h2><p id=approvals>${esc(approvals.message)}</p><p class=m>Signers found: ${esc(approvals.signers.join(', ') || 'none')}; missing: ${approvals.missing} of ${approvals.required}.</p>`,
    );
  if (windows.length === 0) return parts.join('');
  const rows = windows.map((w) => {
    const state = w.ignored
      ? 'closed: moved anyway (break glass)'
      : w.open
        ? 'open'
        : w.held && w.held.length > 0
          ? 'closed: waiting'
          : 'closed';
    const next = w.open ? 'now' : (w.reason ?? '');
    return `<tr><td>${esc(w.key)}<td>${esc(w.timezone)}<td>${esc(state)}<td>${esc(next)}<td>${esc(w.until ?? '')}`;
  });
  parts.push(
    `<h2>Change windows</h2><table id=windows><tr><th>Deployment<th>Time zone<th>Window<th>Next window<th>Opens (UTC)${rows.join('')}</table>`,
  );
  return parts.join('');
}
