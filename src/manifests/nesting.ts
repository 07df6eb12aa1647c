/**
 * Guards in front of YAML composition. Collections nested hundreds of thousands deep made the
 * loader fail badly: flow brackets (`[[[[…`) made the parser allocate without bound (a 2 MB file ran
 * the process, the agent with it, out of memory), and deep block nesting overflowed the stack at a
 * position that depended on how deep the caller's stack already was. No manifest needs more than a
 * handful of levels, so anything past MAX_DEPTH is refused at the first collection that is too deep.
 */
import type { CST } from 'yaml';
import { yamlLib } from './yaml-lib.js';

export const MAX_DEPTH = 64;

/** Lexer control tokens that stand for no source text. */
const controlTokens = (cst: typeof CST): Set<string> => new Set([cst.DOCUMENT, cst.FLOW_END, cst.SCALAR]);

/**
 * Offset of the first `[` or `{` that opens a flow collection deeper than `max`, or -1. Runs on
 * the lexer alone (linear, small), before the parser sees the text.
 */
export function flowTooDeep(text: string, max = MAX_DEPTH): number {
  let open = 0;
  for (let i = 0; i < text.length && open <= max; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) open++;
  }
  if (open <= max) return -1; // not enough brackets to be too deep
  let offset = 0;
  let depth = 0;
  const { CST: cst, Lexer } = yamlLib();
  const control = controlTokens(cst);
  for (const token of new Lexer().lex(text)) {
    if (control.has(token)) continue;
    const type = cst.tokenType(token);
    if (type === 'flow-seq-start' || type === 'flow-map-start') {
      depth++;
      if (depth > max) return offset;
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      depth = Math.max(0, depth - 1);
    }
    offset += token.length;
  }
  return -1;
}

/** Offset of the first collection of the parsed tokens nested deeper than `max`, or -1. Iterative. */
export function tokensTooDeep(tokens: readonly CST.Token[], max = MAX_DEPTH): number {
  const stack: [CST.Token | undefined, number][] = tokens.map((t) => [t, 0]);
  while (stack.length > 0) {
    const [t, depth] = stack.pop()!;
    if (!t) continue;
    if (t.type === 'document') {
      stack.push([t.value, depth]);
    } else if (t.type === 'block-map' || t.type === 'block-seq' || t.type === 'flow-collection') {
      if (depth + 1 > max) return t.offset;
      for (const item of t.items) {
        if ('key' in item) stack.push([item.key ?? undefined, depth + 1]);
        stack.push([item.value, depth + 1]);
      }
    }
  }
  return -1;
}
