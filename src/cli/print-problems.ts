import { visible } from '../util/visible.js';
import type { Problem } from '../manifests/model.js';

/**
 * `FILE:LINE:COL: message` lines and a count, the format of `packsync validate`. Commands that
 * would have planned or applied say that nothing was; `validate` only counts.
 */
export function problemLines(problems: readonly Problem[], command: 'validate' | 'plan' | 'apply' | 'update' = 'apply'): string {
  const errors = problems.filter((p) => p.severity === 'error');
  // One line per problem, whatever a file name or message holds (docs/errors.md, "Text output").
  const lines = problems.map(
    (p) => `${visible(p.file, true)}:${p.line}:${p.column}: ${p.severity === 'warning' ? 'warning: ' : ''}${visible(p.message, true)}`,
  );
  const count = `${errors.length} error${errors.length === 1 ? '' : 's'}`;
  // Warnings alone stop nothing: saying "nothing was changed" would contradict what the command then does.
  if (errors.length === 0) {
    const n = problems.length;
    lines.push(`${count}, ${n} warning${n === 1 ? '' : 's'}.`);
    return lines.join('\n');
  }
  const tail = {
    validate: 'the manifests are not valid.',
    plan: 'nothing was planned.',
    apply: 'nothing was applied.',
    update: 'no manifest was changed.',
  }[command];
  lines.push(`${count}: ${tail}`);
  return lines.join('\n');
}
