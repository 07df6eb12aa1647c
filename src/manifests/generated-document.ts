/**
 * A document an authored kind generates (manifests/expand.ts): plain data with no YAML of its own.
 * Every position asked of it is the authored line its value came from (the longest known prefix of
 * the path), so a schema, rule or plan error about a generated object names FILE:LINE:COL in the
 * Baseline that wrote the value (docs/baselines.md).
 */
import type { LocateMode, ParsedDocument, Position, Segment } from './yaml-types.js';

/** Where a generated field's value was written: a path in the authored document, and the layer. */
export interface Origin {
  at: readonly Segment[];
  layer: string;
}

export interface GeneratedDocument extends ParsedDocument {
  /** Dotted path in the generated document → its origin. */
  origins: ReadonlyMap<string, Origin>;
  /** What generated it: the authored document's name, the app as written, the rings it serves. */
  /** `name`: the app entry's name part in the generated keys (its `name:`, or the app's slug). */
  about: { by: string; app: string; name: string; rings: string[] };
  /** The origin of a path (its longest known prefix, else the generating entry). */
  originOf: (segments: readonly Segment[]) => Origin;
}

export function generatedDocument(
  authored: ParsedDocument,
  value: unknown,
  origins: ReadonlyMap<string, Origin>,
  fallback: Origin,
  about: GeneratedDocument['about'],
): GeneratedDocument {
  const originOf = (segments: readonly Segment[]): Origin => {
    for (let n = segments.length; n > 0; n--) {
      const o = origins.get(segments.slice(0, n).join('.'));
      if (o) return o;
    }
    return fallback;
  };
  const locate = (segments: readonly Segment[], mode: LocateMode): Position => {
    const o = originOf(segments);
    return locateOnce(authored, o.at, o === fallback ? 'value' : mode);
  };
  return {
    file: authored.file,
    index: authored.index,
    value,
    start: locateOnce(authored, fallback.at, 'value'),
    ok: true,
    located: new Map(),
    locate,
    sourceText: () => undefined,
    origins,
    about,
    originOf,
  };
}

// Thousands of generated documents point at a few dozen authored lines: each is located once.
const memo = new WeakMap<ParsedDocument, Map<string, Position>>();

function locateOnce(doc: ParsedDocument, at: readonly Segment[], mode: LocateMode): Position {
  let byPath = memo.get(doc);
  if (!byPath) memo.set(doc, (byPath = new Map<string, Position>()));
  const key = `${mode}\u0000${at.join('\u0000')}`;
  let p = byPath.get(key);
  if (!p) byPath.set(key, (p = doc.locate(at, mode)));
  return p;
}
