import type { Problem } from '../manifests/model.js';

/** `FILE:LINE:COL: message` lines and a count, the format of `packsync validate`. */
export function problemLines(problems: readonly Problem[]): string {
  const errors = problems.filter((p) => p.severity === 'error');
  const lines = problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`);
  lines.push(`${errors.length} error${errors.length === 1 ? '' : 's'}: nothing was applied.`);
  return lines.join('\n');
}
