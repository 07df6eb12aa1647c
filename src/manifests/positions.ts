/**
 * Positions of the fields the planner checks against the live state (catalog apps and versions,
 * script templates, tenants, the wave gate). Those checks run after loading, without the YAML,
 * so the loader keeps where each such field was written: a plan error can then name
 * FILE:LINE:COL of the field itself, as validation errors do.
 */
import type { Kind, SourcePosition } from './model.js';
import { valueAt } from './paths.js';
import type { ParsedDocument } from './yaml-types.js';

/** Only these fields: a handful per document, so a 100k-object desired set stays small. */
const LIVE_FIELDS: Record<Kind, readonly string[]> = {
  Package: [
    'spec.catalog.app',
    'spec.catalog.version',
    'spec.catalog.versionId',
    'spec.catalog.scriptTemplate',
    'spec.custom.scriptTemplate',
  ],
  Flow: ['spec.app', 'spec.package', 'spec.patchGroup', 'spec.scriptTemplate'],
  Deployment: ['spec.flow', 'spec.package', 'spec.version', 'spec.wave'],
  TenantUpload: ['spec.tenant', 'spec.package'],
};

const TO_WAVE = ['spec', 'promotion', 'toWave'] as const;

/** The paths the loader locates for a valid document of this value (its kind's live fields, a Deployment's toWave). */
export function prelocatePaths(value: unknown): string[][] {
  const kind = (value as { kind?: unknown } | null)?.kind;
  const fields = typeof kind === 'string' && Object.hasOwn(LIVE_FIELDS, kind) ? LIVE_FIELDS[kind as Kind] : [];
  const out = fields.map((f) => f.split('.')).filter((segments) => valueAt(value, segments) !== undefined);
  if (kind === 'Deployment' && valueAt(value, TO_WAVE) !== undefined) out.push([...TO_WAVE]);
  return out;
}

/** Dotted path → position, for the fields of `kind` present in `data`; undefined when none is. */
export function fieldPositions(doc: ParsedDocument, kind: Kind, data: unknown): Record<string, SourcePosition> | undefined {
  let out: Record<string, SourcePosition> | undefined;
  for (const field of LIVE_FIELDS[kind]) {
    const segments = field.split('.');
    if (valueAt(data, segments) === undefined) continue;
    const p = doc.locate(segments, 'value');
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
