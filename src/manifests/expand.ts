/**
 * The expand stage (docs/architecture.md, "Manifest kinds"): documents of an authored kind (a
 * Baseline) are turned into object-kind documents after their own schema check and before the
 * object documents are validated, so what they generate is validated, planned, applied, moved and
 * pruned exactly like a hand-written manifest. A generated document points every position it is
 * asked for at the authored line the value came from.
 */
import { AUTHORED_KIND_SPECS } from './kinds/index.js';
import type { AuthoredKindSpec } from './kinds/index.js';
import type { AuthoredRecord, ExpandContext, Expansion } from './kinds/types.js';

export type { AuthoredRecord, ExpandContext, Expansion } from './kinds/types.js';

/** Expands every authored record; `handWritten` are the object records read from files. */
export function expandAuthored(records: readonly AuthoredRecord[], ctx: ExpandContext): Expansion {
  const out: Expansion = { documents: [], problems: [], baselines: [] };
  for (const r of records) {
    const spec: AuthoredKindSpec = AUTHORED_KIND_SPECS[r.kind];
    const e = spec.expand(r, ctx);
    for (const d of e.documents) out.documents.push(d);
    out.problems.push(...e.problems);
    out.baselines.push(...e.baselines);
  }
  return out;
}
