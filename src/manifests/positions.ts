/**
 * Positions of the fields the planner checks against the live state (catalog apps and versions,
 * script templates, tenants, the wave gate). Those checks run after loading, without the YAML,
 * so the loader keeps where each such field was written: a plan error can then name
 * FILE:LINE:COL of the field itself, as validation errors do.
 */
import { isObjectKind, OBJECT_KIND_SPECS } from './kinds/index.js';
import type { Kind, SourcePosition } from './model.js';
import { valueAt } from './paths.js';
import type { Segment } from './yaml-types.js';
import type { ParsedDocument, PrelocatedPath } from './yaml-types.js';
import { locatedKey } from './document-handle.js';

/** A field the planner checks live, as a path; shared, never changed. */
interface LiveField extends PrelocatedPath {
  field: string;
}

/**
 * Only these fields (each kind's `liveFields`): a handful per document, so a 100k-object desired set
 * stays small. Split and keyed once per kind: a warm load asked for them ~60,000 times.
 */
const LIVE_FIELDS = new Map<Kind, readonly LiveField[]>();
function liveFields(kind: Kind): readonly LiveField[] {
  let fields = LIVE_FIELDS.get(kind);
  if (!fields) {
    fields = OBJECT_KIND_SPECS[kind].liveFields.map((field) => {
      const segments = field.split('.');
      return { field, segments, key: locatedKey(segments, 'value') };
    });
    LIVE_FIELDS.set(kind, fields);
  }
  return fields;
}

const TO_WAVE: PrelocatedPath = { segments: ['spec', 'promotion', 'toWave'], key: locatedKey(['spec', 'promotion', 'toWave'], 'value') };

/**
 * The paths the loader locates for a valid document of this value (its kind's live fields, a
 * Deployment's toWave), each with its key in `ParsedDocument.located`.
 */
export function prelocated(value: unknown): PrelocatedPath[] {
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (kind === 'Baseline') return baselinePaths(value).map((segments) => ({ segments, key: locatedKey(segments, 'value') }));
  const fields = typeof kind === 'string' && isObjectKind(kind) ? liveFields(kind) : [];
  const out: PrelocatedPath[] = fields.filter((f) => valueAt(value, f.segments) !== undefined);
  if (kind === 'Deployment' && valueAt(value, TO_WAVE.segments) !== undefined) out.push(TO_WAVE);
  return out;
}

/** Dotted path → position, for the fields of `kind` present in `data`; undefined when none is. */
export function fieldPositions(doc: ParsedDocument, kind: Kind, data: unknown): Record<string, SourcePosition> | undefined {
  let out: Record<string, SourcePosition> | undefined;
  for (const { field, segments, key } of liveFields(kind)) {
    if (valueAt(data, segments) === undefined) continue;
    const p = doc.located.get(key) ?? doc.locate(segments, 'value');
    (out ??= {})[field] = { file: doc.file, line: p.line, column: p.column };
  }
  return out;
}

/** Where a planner error about `field` points: the field when its position is known, else the document. */
export function positionOf(
  m: { source: SourcePosition; positions?: Record<string, SourcePosition> },
  field: string | undefined,
): SourcePosition {
  return (field !== undefined ? m.positions?.[field] : undefined) ?? m.source;
}

/**
 * A Baseline's generated objects point their positions at its entries and fields (manifests/
 * generated-document.ts): located while the file is composed, so a cached baseline expands
 * without composing its file again.
 */
function baselinePaths(value: unknown): Segment[][] {
  const spec = valueAt(value, ['spec']);
  if (spec === null || typeof spec !== 'object') return [];
  const out: Segment[][] = [];
  const fields = (at: Segment[], v: unknown): void => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return;
    for (const k of Object.keys(v)) out.push([...at, k]);
  };
  const s = spec as Record<string, unknown>;
  fields(['spec', 'rings'], s.rings);
  fields(['spec', 'defaults'], s.defaults);
  for (const list of ['apps', 'overrides', 'exceptions']) {
    const entries = s[list];
    if (!Array.isArray(entries)) continue;
    entries.forEach((e, i) => {
      out.push(['spec', list, i]);
      fields(['spec', list, i], e);
    });
  }
  return out;
}
