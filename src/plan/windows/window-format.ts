/**
 * The lines plan and apply print about change windows (docs/policy.md): what waits and until when,
 * and what went through a closed window because glass was broken.
 */
import type { Plan } from '../types.js';

export function windowLines(plan: Pick<Plan, 'windows'>): string[] {
  const lines: string[] = [];
  for (const w of plan.windows ?? []) {
    if (w.ignored) lines.push(`${w.key}  window closed, moved anyway: --ignore-windows by ${w.ignored.actor}: ${w.ignored.reason}`);
    else if (w.held && w.held.length > 0)
      lines.push(`${w.key}  ${w.reason ?? 'waits for its window'}${w.until ? `; until ${w.until}` : ''} (held: ${w.held.join(', ')})`);
  }
  return lines;
}
