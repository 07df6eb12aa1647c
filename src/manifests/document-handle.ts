/**
 * A parsed document that does not keep its composed YAML. The composed documents (about six objects
 * per line of YAML) are the largest allocation of a load, and a repository's were all alive at once
 * until the cross-document rules ran: 3,000 flow files held ~90 MB (heap snapshot,
 * docs/performance.md fleet-10x). The positions every valid manifest carries are located while the
 * file is composed (`ParseOptions.prelocate`) or come from the manifest cache; any other position
 * (a problem's) composes the file's text again on first use (the same text composes to the same
 * documents).
 */
import { isAlias, isMap, isScalar, isSeq, yamlLib } from './yaml-lib.js';
import type { Document, Node, Pair, ParsedNode } from 'yaml';
import type { Located, LocateMode, ParsedDocument, Position, Segment } from './yaml-types.js';

/** The key of a located path in `ParsedDocument.located`. */
export const locatedKey = (segments: readonly Segment[], mode: LocateMode): string => `${mode}\u0000${segments.join('\u0000')}`;

interface Composed {
  doc: Document.Parsed;
  contents: ParsedNode;
  pos: (offset: number) => Position;
}

/** Composes `text` again, once, the first time a document of it is asked for. */
export type Recomposer = (index: number) => Composed;

export function recomposer(text: string): Recomposer {
  let again: { docs: Document.Parsed[]; pos: (offset: number) => Position } | null = null;
  return (index) => {
    if (!again) {
      const { Composer, LineCounter, Parser } = yamlLib();
      const lines = new LineCounter();
      const docs = Array.from(
        new Composer({ prettyErrors: false, uniqueKeys: true, strict: true }).compose(new Parser(lines.addNewLine).parse(text)),
      );
      again = {
        docs,
        pos: (offset) => {
          const p = lines.linePos(offset);
          return { line: p.line, column: p.col };
        },
      };
    }
    const doc = again.docs[index]!;
    return { doc, contents: doc.contents!, pos: again.pos };
  };
}

export function documentHandle(
  file: string,
  text: string,
  again: Recomposer,
  d: { index: number; value: unknown; start: Position; ok: boolean; located: Located },
): ParsedDocument {
  return {
    file,
    ...d,
    locate: (segments, mode) => {
      const known = d.located.get(locatedKey(segments, mode));
      if (known) return known;
      const c = again(d.index);
      return c.pos(locateOffset(c.doc, c.contents, segments, mode));
    },
    sourceText: (segments) => {
      const c = again(d.index);
      const found = walk(c.doc, c.contents, segments);
      const node = found.node;
      if (found.missing > 0 || !node?.range || !isScalar(node)) return undefined;
      return text.slice(node.range[0], node.range[1]).trim();
    },
  };
}

interface Walked {
  node: Node | null;
  /** The key of the last pair walked through, if the last step was a mapping lookup. */
  key: Node | null;
  /** How many trailing segments could not be found. */
  missing: number;
}

function walk(doc: Document.Parsed, root: ParsedNode, segments: readonly Segment[]): Walked {
  let node: Node | null = root;
  let key: Node | null = null;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (isAlias(node)) node = (node.resolve(doc) as Node | undefined) ?? null;
    let next: Node | null | undefined;
    let nextKey: Node | null = null;
    if (isMap(node)) {
      const pair: Pair | undefined = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === String(seg));
      if (pair) {
        next = (pair.value as Node | null) ?? null;
        nextKey = pair.key as Node;
      }
    } else if (isSeq(node)) {
      next = node.items[Number(seg)] as Node | undefined;
    }
    if (next === undefined) return { node, key, missing: segments.length - i };
    key = nextKey;
    node = next;
  }
  return { node, key, missing: 0 };
}

function start(n: Node | null): number | undefined {
  return n?.range?.[0];
}

export function locateOffset(doc: Document.Parsed, root: ParsedNode, segments: readonly Segment[], mode: LocateMode): number {
  const w = walk(doc, root, segments);
  const fallback = root.range[0];
  if (w.missing > 0) {
    // The path ends inside a mapping that lacks it: point at that mapping's key (or the mapping).
    return start(w.key) ?? start(w.node) ?? fallback;
  }
  if (mode === 'key') return start(w.key) ?? start(w.node) ?? fallback;
  if (mode === 'container') return start(w.key) ?? start(w.node) ?? fallback;
  // An empty value (`state:`) has no text of its own: point at its key.
  if (w.node === null || (isScalar(w.node) && w.node.value === null && w.node.range && w.node.range[0] === w.node.range[1])) {
    return start(w.key) ?? fallback;
  }
  return start(w.node) ?? start(w.key) ?? fallback;
}
