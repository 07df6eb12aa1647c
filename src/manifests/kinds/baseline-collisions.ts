/**
 * A generated object whose key a hand-written manifest also has is an error at both positions
 * (docs/baselines.md): neither silently wins, and the generated copy is dropped so the name is
 * not reported a third time as a duplicate.
 */
import type { AuthoredRecord } from './types.js';
import type { GeneratedDocument } from '../generated-document.js';
import type { DocRecord } from '../doc-record.js';
import type { BaselineProblems } from './baseline-spec.js';

export function collisions(
  r: AuthoredRecord,
  documents: readonly GeneratedDocument[],
  handWritten: readonly DocRecord[],
  problems: BaselineProblems,
): GeneratedDocument[] {
  const written = new Map<string, DocRecord>();
  for (const h of handWritten) if (h.name !== undefined) written.set(`${h.kind}/${h.name}`, h);
  if (written.size === 0) return [...documents];
  return documents.filter((d) => {
    const v = d.value as { kind: string; metadata: { name: string } };
    const key = `${v.kind}/${v.metadata.name}`;
    const h = written.get(key);
    if (!h) return true;
    const here = d.locate(['metadata', 'name'], 'value');
    const there = h.doc.locate(['metadata', 'name'], 'value');
    problems.at(
      originPath(d),
      'baseline.key-collision',
      `generates ${key}, which ${h.doc.file}:${there.line}:${there.column} also defines by hand; remove one of them (or omit the app with an exception)`,
    );
    problems.list.push({
      file: h.doc.file,
      line: there.line,
      column: there.column,
      pointer: '/metadata/name',
      rule: 'baseline.key-collision',
      message: `${h.prefix}Baseline "${r.name ?? '?'}" (${d.file}:${here.line}:${here.column}) generates the same ${key}; remove one of them`,
      severity: 'error',
    });
    return false;
  });
}

function originPath(d: GeneratedDocument): readonly (string | number)[] {
  return d.origins.get('metadata.name')?.at ?? [];
}
