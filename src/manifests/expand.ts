/**
 * The expand stage (docs/architecture.md, "Manifest kinds"): documents of an authored kind (a
 * Baseline) are turned into object-kind documents after their own schema check and before the
 * object documents are validated, so what they generate is validated, planned, applied, moved and
 * pruned exactly like a hand-written manifest. A generated document points every position it is
 * asked for at the authored line the value came from.
 */
import { AUTHORED_KIND_SPECS } from './kinds/index.js';
import type { AuthoredKindSpec } from './kinds/index.js';
import type { AuthoredKind, Problem } from './model.js';
import type { DocRecord } from './rules.js';
import type { ParsedDocument } from './yaml-source.js';

/** A valid document of an authored kind, as the schema check leaves it. */
export type AuthoredRecord = Omit<DocRecord, 'kind'> & { kind: AuthoredKind };

export interface Expansion {
  /** Generated object documents, in a stable order, each to be checked like a parsed one. */
  documents: ParsedDocument[];
  problems: Problem[];
}

/** Expands every authored record; `handWritten` are the object records read from files. */
export function expandAuthored(records: readonly AuthoredRecord[], handWritten: readonly DocRecord[]): Expansion {
  const out: Expansion = { documents: [], problems: [] };
  for (const r of records) {
    const spec: AuthoredKindSpec = AUTHORED_KIND_SPECS[r.kind];
    const e = spec.expand(r, handWritten);
    out.documents.push(...e.documents);
    out.problems.push(...e.problems);
  }
  return out;
}
