/** Problems in the order people read them: unparsable files first, then by file, line and column. */
import type { Problem } from './model.js';

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A file that cannot be read or parsed comes first: its other problems may follow from it. */
function parseLevel(p: Problem): number {
  return p.rule.startsWith('yaml.') || p.rule.startsWith('file.') ? 0 : 1;
}

export function sortProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const p of problems) {
    const key = `${p.file}\0${p.line}\0${p.column}\0${p.rule}\0${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out.sort(
    (a, b) =>
      parseLevel(a) - parseLevel(b) ||
      compare(a.file, b.file) ||
      a.line - b.line ||
      a.column - b.column ||
      compare(a.rule, b.rule) ||
      compare(a.message, b.message),
  );
}
