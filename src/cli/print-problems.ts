import type { Problem } from '../manifests/model.js';

/**
 * `FILE:LINE:COL: message` lines and a count, the format of `packsync validate`. Commands that
 * would have applied say that nothing was; `validate` never applies, so it only counts.
 */
export function problemLines(problems: readonly Problem[], command: 'validate' | 'apply' = 'apply'): string {
  const errors = problems.filter((p) => p.severity === 'error');
  const lines = problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`);
  const count = `${errors.length} error${errors.length === 1 ? '' : 's'}`;
  lines.push(command === 'validate' ? `${count}: the manifests are not valid.` : `${count}: nothing was applied.`);
  return lines.join('\n');
}
