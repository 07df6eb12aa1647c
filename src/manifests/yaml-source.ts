/**
 * YAML with positions: every document of a file is parsed with a LineCounter so any JSON pointer
 * into it can be turned back into the 1-based line and column a person sees in an editor.
 */
import type { CST } from 'yaml';
import { isAlias, isMap, isPair, isScalar, isSeq, yamlLib } from './yaml-lib.js';
import type { Document, Node, YAMLError } from 'yaml';
import type { Problem } from './model.js';
import { documentHandle, locateOffset, recomposer } from './document-handle.js';
import { flowTooDeep, MAX_DEPTH, tokensTooDeep } from './nesting.js';
import { unclosedOpening } from './flow-brackets.js';
import { parsePlainYaml } from './plain-yaml.js';
import type { ParsedDocument, Position, PrelocatedPath } from './yaml-types.js';

export interface ParsedFile {
  file: string;
  documents: ParsedDocument[];
  problems: Problem[];
  /**
   * What the documents that failed to parse may define, as far as can be read before the error:
   * `kind` and `name` when they were readable. A reference to such a name is not reported as
   * unresolved (the YAML error is the one to fix). `unknown`: the file failed as a whole, or a
   * broken document's kind or name could not be read, and it mentions packsync.
   */
  broken: { kind?: string; name?: string }[];
}

export interface ParseOptions {
  /**
   * Paths whose positions (mode 'value') are located while the composed document is alive: the
   * loader needs these for every valid document (`fieldPositions`), and locating them later would
   * compose every file a second time.
   */
  prelocate?: (value: unknown) => readonly PrelocatedPath[];
  /** False: always the yaml package, never the plain-style fast path (the test comparing the two). */
  plain?: boolean;
}

export function parseYamlFile(file: string, text: string, opts: ParseOptions = {}): ParsedFile {
  const tooDeep = (p: Position): ParsedFile => {
    const message = `collections nested more than ${MAX_DEPTH} deep: the file is not read any further`;
    return {
      file,
      documents: [],
      problems: [{ ...problemBase(file, p), rule: 'yaml.too-deep', message, severity: 'error' }],
      broken: mentionsPacksync(text) ? [{}] : [],
    };
  };
  const deepFlow = flowTooDeep(text);
  if (deepFlow >= 0) {
    const before = text.slice(0, deepFlow).split('\n');
    return tooDeep({ line: before.length, column: (before[before.length - 1] ?? '').length + 1 });
  }
  // The plain block style most manifests use is read on a path ~12× faster (plain-yaml.ts), with the same result.
  const plain = opts.plain === false ? undefined : parsePlainYaml(file, text, opts.prelocate);
  if (plain && plain.documents.length <= MAX_DOCUMENTS) return plain;
  const { Composer, LineCounter, Parser } = yamlLib();
  const lineCounter = new LineCounter();
  const pos = (offset: number): Position => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  // logLevel 'error': the library's own process warnings ("Keys with collection values will be
  // stringified") must not leak to stderr; problems are reported as problems.
  // parseAllDocuments, in its two steps, so the depth is checked before composing recurses.
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  const deep = tokensTooDeep(tokens);
  if (deep >= 0) return tooDeep(pos(deep));
  const docs = Array.from(new Composer({ prettyErrors: false, uniqueKeys: true, strict: true, logLevel: 'error' }).compose(tokens));
  if (docs.length > MAX_DOCUMENTS) {
    const extra = docs[MAX_DOCUMENTS]!;
    const message = `more than ${MAX_DOCUMENTS} documents in one file: split it into several files`;
    return {
      file,
      documents: [],
      problems: [{ ...problemBase(file, pos(extra.range[0])), rule: 'file.too-many-documents', message, severity: 'error' }],
      broken: mentionsPacksync(text) ? [{}] : [],
    };
  }
  // Both only matter for a file with a problem or an alias: most files have neither (a cold load of 3,770).
  let quoted: ReturnType<typeof quotedScalars> | undefined;
  const src: FileSource = { file, text, pos, quoted: () => (quoted ??= quotedScalars(tokens)), mayAlias: text.includes('*') };
  const out: Pick<ParsedFile, 'documents' | 'problems' | 'broken'> = { documents: [], problems: [], broken: [] };
  // The composed documents (about six objects per line of YAML) are the largest allocation of a
  // load, and a repository's are all alive at once until the cross-document rules ran: 3,000 flow
  // files held ~90 MB (heap snapshot, docs/performance.md fleet-10x). Positions are needed only to
  // report a problem, so the documents are not kept (document-handle.ts): the first position asked
  // for parses the file again (the same text composes to the same documents).
  const again = recomposer(text);
  // A file with no documents composes to an empty list.
  const list: Document.Parsed[] = docs;
  list.forEach((doc, index) => readDocument(src, { doc, index, again, prelocate: opts.prelocate }, out));
  return { file, ...out };
}

/** The text of one file and what locating in it needs: shared by every message about the file. */
interface FileSource {
  file: string;
  text: string;
  pos: (offset: number) => Position;
  /** The file's quoted scalars, found when a message needs them. */
  quoted: () => ReturnType<typeof quotedScalars>;
  /** False when no alias can be in the file (an alias is written `*name`). */
  mayAlias: boolean;
}

/** One composed document: its problems (YAML errors, warnings, custom tags, alias blow-up) and its handle. */
function readDocument(
  src: FileSource,
  d: { doc: Document.Parsed; index: number; again: ReturnType<typeof recomposer>; prelocate: ParseOptions['prelocate'] },
  out: Pick<ParsedFile, 'documents' | 'problems' | 'broken'>,
): void {
  const { file, text, pos } = src;
  const { doc, index } = d;
  // One mistake often trips several parser errors on the same line; the first says it best.
  const lines = new Set<number>();
  for (const e of doc.errors) {
    const line = pos(e.pos[0]).line;
    if (lines.has(line)) continue;
    lines.add(line);
    out.problems.push(yamlProblem(src, e, 'error'));
  }
  if (doc.errors.length > 0) {
    const what = brokenDocument(doc, text);
    if (what) out.broken.push(what);
  }
  // A custom tag (`!evil`, `!!binary` outside the core schema) would be read as a plain value
  // whose meaning the author had in mind elsewhere: manifests are plain YAML, so it is an error.
  for (const w of doc.warnings)
    out.problems.push(w.code === 'TAG_RESOLVE_FAILED' ? customTag(file, w, pos) : yamlProblem(src, w, 'warning'));
  const contents = doc.contents;
  // A document holding only comments (or a trailing `---`) is not a manifest.
  if (contents === null || (isScalar(contents) && contents.value === null && doc.errors.length === 0)) return;
  const blownUp = ok0(doc) && src.mayAlias ? aliasBlowUp(doc, contents) : null;
  if (blownUp)
    out.problems.push({ ...problemBase(file, pos(blownUp.at)), rule: 'yaml.alias-expansion', message: blownUp.message, severity: 'error' });
  const ok = doc.errors.length === 0 && !blownUp;
  let value: unknown;
  if (ok) {
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      const message = `cannot read this document: ${(e as Error).message}`;
      out.problems.push({ ...problemBase(file, pos(contents.range[0])), rule: 'yaml.syntax', message, severity: 'error' });
    }
  }
  const located = new Map<string, Position>();
  if (ok && value !== undefined && d.prelocate) {
    for (const { segments, key } of d.prelocate(value)) located.set(key, pos(locateOffset(doc, contents, segments, 'value')));
  }
  out.documents.push(
    documentHandle(file, text, d.again, { index, value, start: pos(contents.range[0]), ok: ok && value !== undefined, located }),
  );
}

function mentionsPacksync(text: string): boolean {
  return /packsync/i.test(text);
}

/**
 * The kind and name of a document with YAML errors, read from what the parser could build before
 * the error; undefined when the document is not a packsync one (a Helm template, another tool's
 * file), so it holds back nothing.
 */
function brokenDocument(doc: Document.Parsed, text: string): { kind?: string; name?: string } | undefined {
  const [from, , to] = doc.range;
  if (!mentionsPacksync(text.slice(from, to))) return undefined;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch {
    return {};
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const v = value as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } | null };
  if (typeof v.apiVersion === 'string' && !/packsync/i.test(v.apiVersion)) return undefined;
  const kind = typeof v.kind === 'string' ? v.kind : undefined;
  const name = typeof v.metadata?.name === 'string' ? v.metadata.name : undefined;
  return { ...(kind !== undefined ? { kind } : {}), ...(name !== undefined ? { name } : {}) };
}

/** Start and end offsets of every quoted scalar (keys and values, at any depth). */
function quotedScalars(tokens: readonly CST.Token[]): { start: number; end: number; quote: string }[] {
  const out: { start: number; end: number; quote: string }[] = [];
  const add = (t: CST.Token | null | undefined): void => {
    if (t && (t.type === 'double-quoted-scalar' || t.type === 'single-quoted-scalar')) {
      out.push({ start: t.offset, end: t.offset + t.source.length, quote: t.source[0] ?? '' });
    }
  };
  for (const token of tokens) {
    if (token.type !== 'document') continue;
    add(token.value);
    yamlLib().CST.visit(token, (item) => {
      add(item.key);
      add(item.value);
    });
  }
  return out;
}

/** Documents one file may hold (a limit against generated or hostile files; 5,000 is far past any hand-written file). */
export const MAX_DOCUMENTS = 5000;

function customTag(file: string, w: YAMLError, pos: (o: number) => Position): Problem {
  const tag = /tag:?\s*(\S+)/i.exec(w.message)?.[1] ?? '';
  return {
    ...problemBase(file, pos(w.pos[0])),
    rule: 'yaml.custom-tag',
    message: `custom tag ${tag} is not allowed: manifests are plain YAML (strings, numbers, booleans, lists, mappings)`,
    severity: 'error',
  };
}

function problemBase(file: string, p: Position): Pick<Problem, 'file' | 'line' | 'column' | 'pointer'> {
  return { file, line: p.line, column: p.column, pointer: '' };
}

function yamlProblem(src: FileSource, e: YAMLError, severity: Problem['severity']): Problem {
  const { file, text, pos } = src;
  // An unclosed quote runs to the end of the file, where the parser notices it: point at the quote
  // that opens it instead (`version: "7.4.6` is reported where `"` is, not past the last line).
  const quote = /^Missing closing (["'])quote/.exec(e.message)?.[1];
  const opening = quote === undefined ? undefined : src.quoted().find((q) => q.quote === quote && q.start <= e.pos[0] && e.pos[0] <= q.end);
  const at = pos(opening ? opening.start : pastIndent(text, e.pos[0]));
  const base = problemBase(file, at);
  if (opening) {
    return { ...base, rule: 'yaml.syntax', message: `YAML: Missing closing ${quote}quote for the string that starts here`, severity };
  }
  const close = /end with an? ([\]}])/.exec(e.message)?.[1] as ']' | '}' | undefined;
  const bracket = close === undefined ? undefined : unclosedOpening(text, e.pos[0], close, src.quoted());
  if (close !== undefined && bracket !== undefined) {
    const what = close === ']' ? 'flow sequence' : 'flow mapping';
    return {
      ...problemBase(file, pos(bracket)),
      rule: 'yaml.syntax',
      message: `YAML: unclosed ${close === ']' ? '[' : '{'}: the ${what} that starts here must end with ${close} (noticed at line ${at.line})`,
      severity,
    };
  }
  if (e.code === 'DUPLICATE_KEY') {
    const key = keyAt(text, e.pos[0]);
    return { ...base, rule: 'yaml.duplicate-key', message: `duplicate key "${key}": a mapping cannot have the same key twice`, severity };
  }
  if (e.code === 'TAB_AS_INDENT') {
    return { ...base, rule: 'yaml.syntax', message: 'tab used for indentation: YAML indents with spaces only', severity };
  }
  const message = e.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
  return { ...base, rule: severity === 'error' ? 'yaml.syntax' : 'yaml.warning', message: `YAML: ${message}`, severity };
}

/**
 * An error the library places in a line's indentation (BAD_INDENT, a block sequence item indented
 * too little: column 1 of `  scope: machine`) is reported at the token it is about, the line's
 * first character after the spaces. Any other offset is kept.
 */
function pastIndent(text: string, offset: number): number {
  if (text[offset] !== ' ') return offset;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  for (let i = lineStart; i < offset; i++) if (text[i] !== ' ') return offset;
  let end = offset;
  while (text[end] === ' ') end++;
  return end < text.length && text[end] !== '\n' && text[end] !== '\r' ? end : offset;
}

function keyAt(text: string, offset: number): string {
  const m = /^[^:\n]*/.exec(text.slice(offset));
  return (m?.[0] ?? '').trim();
}

const ok0 = (doc: Document.Parsed): boolean => doc.errors.length === 0;

/** What aliases may expand a document to: the most a manifest file may hold (load.ts DEFAULT_MAX_FILE_BYTES). */
export const MAX_EXPANDED_BYTES = 1024 * 1024;

/**
 * A document whose aliases expand it past MAX_EXPANDED_BYTES, with the first alias's offset. The count
 * of aliases is bounded by `maxAliasCount`; this bounds what they expand to (900 aliases of a 960 KB
 * scalar pass any count limit and become 860 MB when the spec is hashed). Sizes are source bytes, an
 * alias counted as the size of what it names, computed once per node.
 *
 * An alias inside the collection its anchor names (`spec: &a {x: *a}`) expands without end: toJS
 * would give a value that contains itself, and every later walk of it (schema, hashing) overflows
 * the stack. It is reported at the alias, as the same rule, before the value is built.
 */
function aliasBlowUp(doc: Document.Parsed, contents: Node): { at: number; message: string } | null {
  let firstAlias: number | null = null;
  let cycle: { at: number; message: string } | null = null;
  const memo = new Map<Node, number>();
  // The collections being sized, from the root down: an alias that resolves to one of them is a cycle.
  const open = new Set<Node>();
  const size = (node: unknown): number => {
    if (!node || typeof node !== 'object' || cycle) return 0;
    const n = node as Node;
    if (open.has(n)) return 0;
    const known = memo.get(n);
    if (known !== undefined) return known;
    let total = 0;
    open.add(n);
    if (isAlias(n)) {
      firstAlias ??= n.range?.[0] ?? 0;
      const target = n.resolve(doc);
      if (target && open.has(target)) cycle = selfAlias(n.source, n.range?.[0] ?? 0);
      else total = size(target);
    } else if (isScalar(n)) {
      total = n.range ? n.range[1] - n.range[0] : String(n.value).length;
    } else if (isMap(n) || isSeq(n)) {
      for (const item of n.items as unknown[]) total += isPair(item) ? size(item.key) + size(item.value) + 2 : size(item) + 1;
    }
    open.delete(n);
    total = Math.min(total, Number.MAX_SAFE_INTEGER);
    memo.set(n, total);
    return total;
  };
  const total = size(contents);
  if (cycle) return cycle;
  if (firstAlias === null || total <= MAX_EXPANDED_BYTES) return null;
  return {
    at: firstAlias,
    message: `aliases expand this document to about ${total} bytes, more than the ${MAX_EXPANDED_BYTES} a manifest may have; write the values out instead of repeating them with aliases`,
  };
}

function selfAlias(anchor: string, at: number): { at: number; message: string } {
  return {
    at,
    message: `alias *${anchor} is inside the value its anchor &${anchor} names, so it expands without end; write the values out instead of referring to the enclosing value`,
  };
}
