/**
 * Terraform's approval rule (docs/reconcile.md): on a terminal the plan is followed by a prompt that lists
 * deletes and replacements again and accepts only "yes"; without a terminal, `--auto-approve` is
 * required and its absence is an error before any write.
 */
import type { Plan } from '../plan/types.js';
import type { CliIo } from './io.js';

/** `interrupted`: Ctrl-C at the prompt, which exits 130 like any other interruption. */
export type Approval = 'approved' | 'refused' | 'interrupted';

/** `plain`: no colour wanted (--no-color, NO_COLOR, TERM=dumb), so no terminal control codes either. */
export async function approve(plan: Plan, io: CliIo, autoApprove: boolean, plain = false): Promise<Approval> {
  if (autoApprove) return 'approved';
  if (!io.prompt) {
    io.stderr(
      'Error: apply needs approval: standard input is not a terminal; review the plan above and pass --auto-approve (or apply a plan saved with `plan --out`). Nothing was changed.',
    );
    return 'refused';
  }
  const destructive = plan.objects.filter((o) => o.change === 'delete' || o.change === 'replace');
  const lines = ['', 'Do you want to perform these actions?'];
  if (destructive.length > 0) {
    lines.push('  These objects will be deleted or replaced:');
    for (const o of destructive) {
      // Each delete with what it ends (live status and wave), each replacement with the rollouts it destroys.
      const live = o.change === 'delete' && o.reasons[0]?.startsWith('live: ') ? ` (${o.reasons[0]})` : '';
      lines.push(`    ${o.change === 'delete' ? '-' : '±'} ${o.key}${live}`);
      for (const d of o.destroys ?? []) lines.push(`        destroys ${d.key} (${d.status}, wave ${d.wave})`);
    }
  }
  lines.push("  Only 'yes' will be accepted to approve.", '');
  io.stdout(lines.join('\n'));
  const answer = await io.prompt('  Enter a value: ', { plain });
  if (answer === null) {
    io.stderr('Interrupted at the approval prompt. Nothing was changed.');
    return 'interrupted';
  }
  if (answer.trim() === 'yes') return 'approved';
  io.stderr('Apply cancelled. Nothing was changed.');
  return 'refused';
}
