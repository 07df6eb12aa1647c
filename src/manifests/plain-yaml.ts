/**
 * The fast path of parsing a manifest file (docs/architecture.md, "Parsing: the plain-style fast
 * path"). Most manifests are written in the plainest block style: one `key: value` per line, lists
 * of `- ` items, single-line scalars, comments. Such a file is read by js-yaml, about twelve times
 * faster than composing it with the yaml package (a cold load of 3,770 files spent ~4 s of CPU
 * there), with plain scalars resolved by the yaml package's own core-schema tags, and the few
 * positions the loader keeps (`ParseOptions.prelocate`) found by a scan of the lines.
 *
 * A key's value may also be a one-line flow mapping of scalars (`update: { track: latest }`, how
 * version policies are often written: each such file took the full parser, ~25 ms for 50 packages).
 * Anything else outside that style (a nested or multi-line flow collection, a flow sequence, a block
 * scalar, an anchor, alias or tag, a quoted key, a multi-line scalar, a tab, a CR, an empty
 * document, a warning or error of either parser)
 * returns undefined, and the file is parsed by the yaml package as before. So a file read here
 * gives what the yaml package gives: the same values, document indexes and positions, and no
 * problem (test/manifests/plain-yaml.test.ts compares the two paths).
 */
import { createRequire } from 'node:module';
import type * as JsYaml from 'js-yaml';
import { documentHandle, recomposer } from './document-handle.js';
import { MAX_DEPTH } from './nesting.js';
import { isScalar, yamlLib } from './yaml-lib.js';
import type { ParsedDocument, Position, PrelocatedPath, Segment } from './yaml-types.js';

/** What the fast path gives: the documents of a file that has no problem (the shape of `ParsedFile`). */
export interface PlainFile {
  file: string;
  documents: ParsedDocument[];
  problems: [];
  broken: [];
}

/** One content line of the plain style: where its content starts, and its key and inline value if it has them. */
interface Line {
  /** 1-based line number. */
  n: number;
  /** Leading spaces. */
  indent: number;
  /** `- ` indicators before the content. */
  dashes: number;
  /** 0-based column of the content after the indent and dashes (the key, or the scalar of an item). */
  col: number;
  key?: string;
  /** 0-based column of the value on the key's line; undefined when the value is on the following lines. */
  valueCol?: number;
  /** An item that is a scalar (`- value`). */
  scalar?: true;
  /** The value is a one-line flow mapping of scalars (`{ track: latest }`): each key's 0-based value column. */
  flow?: Map<string, number>;
}

/** Characters neither parser treats alike in every context, or that need the full parser's checks. */
const REFUSED_CHARS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_./-]*):(?: +|$)/;
/** Keys the core schema reads as null or a boolean, and one no mapping should set. */
const REFUSED_KEY = /^(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|__proto__)$/;
/** JSON's escapes only, and no `\u` escape of half a surrogate pair (the two parsers need not agree on one). */
const DOUBLE_QUOTED = /^"(?:[^"\\]|\\["\\/bfnrt]|\\u(?![dD][89abAB])[0-9a-fA-F]{4})*"/;
const SINGLE_QUOTED = /^'(?:[^']|'')*'/;
/** A plain scalar may not start with an indicator (a leading `-` only before a digit or dot: a negative number). */
const PLAIN_START = /^(?:[^-?:,[\]{}#&*!|>'"%@`\s]|-[0-9.])/;
/** A key inside a flow mapping, then its separator. */
const FLOW_KEY = /^([A-Za-z_][A-Za-z0-9_./-]*): +/;
/** A plain scalar inside a flow mapping: none of the characters that end or change one there. */
const FLOW_PLAIN = /^(?:[^-?:,[\]{}#&*!|>'"%@`\s]|-[0-9.])[^,[\]{}#:"']*/;

export function parsePlainYaml(
  file: string,
  text: string,
  prelocate?: (value: unknown) => readonly PrelocatedPath[],
): PlainFile | undefined {
  if (REFUSED_CHARS.test(text)) return undefined;
  const docs = plainDocuments(text);
  if (!docs || docs.length === 0) return undefined;
  const values = jsYamlValues(text);
  if (!values || values.length !== docs.length) return undefined;
  const again = recomposer(text);
  const documents: ParsedDocument[] = [];
  for (const [index, lines] of docs.entries()) {
    const value = values[index];
    const first = lines[0]!;
    if (!isPlainObject(value) || first.dashes > 0 || first.indent > 0 || first.key === undefined) return undefined;
    const located = new Map<string, Position>();
    for (const { segments, key } of prelocate?.(value) ?? []) {
      const at = locateValue(lines, segments);
      if (!at) return undefined;
      located.set(key, at);
    }
    const start = { line: first.n, column: 1 };
    documents.push(documentHandle(file, text, again, { index, value, start, ok: true, located }));
  }
  return { file, documents, problems: [], broken: [] };
}

/**
 * Whether the fast path will likely read `text` (its lines are in the plain style), by the line scan
 * alone: a cold load gives a worker only the files that are not (parallel-parse.ts).
 */
export function looksPlain(text: string): boolean {
  return !REFUSED_CHARS.test(text) && (plainDocuments(text)?.length ?? 0) > 0;
}

/** The content lines of each document, or undefined when a line is outside the plain style. */
function plainDocuments(text: string): Line[][] | undefined {
  const docs: Line[][] = [[]];
  const raw = text.split('\n');
  let prev: Line | undefined;
  for (let i = 0; i < raw.length; i++) {
    const s = raw[i]!;
    if (s === '---') {
      if (prev && bare(prev)) return undefined;
      docs.push([]);
      prev = undefined;
      continue;
    }
    const line = contentLine(s, i + 1);
    if (line === null) continue;
    if (line === undefined || (prev && !mayFollow(prev, line))) return undefined;
    docs[docs.length - 1]!.push(line);
    prev = line;
  }
  if (prev && bare(prev)) return undefined;
  // Comments before the first `---` belong to the first document; any other empty document
  // (a trailing `---`) counts in the yaml package's document indexes: that file takes the full path.
  if (docs[0]!.length === 0) docs.shift();
  return docs.every((d) => d.length > 0) ? docs : undefined;
}

/**
 * A line indented deeper than the one before it is the block that line opens (`key:` or a bare
 * `-`), or the next key of a mapping begun in an item (`- a: 1` then `  b: 2`). Anything else
 * would be the continuation of a multi-line scalar, which the full parser reads.
 */
function mayFollow(prev: Line, line: Line): boolean {
  // An empty item (`-` with nothing below it) is read differently by js-yaml (`- -\n- 1`).
  if (bare(prev)) return line.indent > prev.indent;
  if (line.indent <= prev.indent) return true;
  if (prev.valueCol === undefined && !prev.scalar) return true;
  return prev.dashes > 0 && prev.key !== undefined && line.dashes === 0 && line.indent === prev.col;
}

/** An item with nothing on its line (`-`): its value is the block below it. */
function bare(l: Line): boolean {
  return l.dashes > 0 && l.key === undefined && !l.scalar;
}

/** One line: null when blank or a comment, undefined when outside the plain style. */
function contentLine(s: string, n: number): Line | null | undefined {
  let col = 0;
  while (s.charCodeAt(col) === 32) col++;
  if (col === s.length || s[col] === '#') return null;
  if (s.startsWith('---', col) || s.startsWith('...', col)) return undefined;
  const indent = col;
  let dashes = 0;
  while (s[col] === '-' && (s[col + 1] === ' ' || col + 1 === s.length)) {
    dashes++;
    col++;
    while (s.charCodeAt(col) === 32) col++;
  }
  // Deep enough for the full parser's nesting limit (nesting.ts) to matter: let it judge.
  if (col >= MAX_DEPTH) return undefined;
  if (col === s.length) return dashes > 0 ? { n, indent, dashes, col } : undefined;
  const rest = s.slice(col);
  const key = KEY_LINE.exec(rest);
  if (!key) return dashes > 0 && plainValueEnd(rest) ? { n, indent, dashes, col, scalar: true } : undefined;
  if (REFUSED_KEY.test(key[1]!) || key[1]!.length > 1000) return undefined;
  const valueCol = col + key[0].length;
  if (valueCol === s.length) return { n, indent, dashes, col, key: key[1]! };
  if (s[valueCol] === '{') {
    // A flow mapping is one level deeper than its key: the nesting limit is the full parser's to judge there too.
    if (col >= MAX_DEPTH - 1) return undefined;
    const flow = flowMapping(s.slice(valueCol), valueCol);
    return flow ? { n, indent, dashes, col, key: key[1]!, valueCol, flow } : undefined;
  }
  const end = plainValueEnd(s.slice(valueCol));
  if (end === undefined) return undefined;
  return end === 0 ? { n, indent, dashes, col, key: key[1]! } : { n, indent, dashes, col, key: key[1]!, valueCol };
}

/**
 * The length of a single-line scalar at the start of `v` when only a comment or spaces follow it
 * (0 when `v` is only a comment), else undefined.
 */
function plainValueEnd(v: string): number | undefined {
  if (v[0] === '#') return 0;
  const quoted = v[0] === '"' ? DOUBLE_QUOTED.exec(v) : v[0] === "'" ? SINGLE_QUOTED.exec(v) : null;
  if (quoted) return /^ *(?:#.*)?$/.test(v.slice(quoted[0].length)) ? quoted[0].length : undefined;
  if (!PLAIN_START.test(v)) return undefined;
  const hash = v.indexOf(' #');
  const value = (hash < 0 ? v : v.slice(0, hash)).trimEnd();
  if (value.includes(': ') || value.endsWith(':')) return undefined;
  return value.length;
}

/**
 * A one-line flow mapping of scalars at the start of `v` (`{ track: latest, group: weekly }`, how
 * version policies are often written), when only spaces or a comment follow it: each key and the
 * column of its value (`base` is `v`'s column). Nothing nested, no empty value, no trailing comma,
 * no `:` in a plain value: undefined, and the full parser reads the file.
 */
function flowMapping(v: string, base: number): Map<string, number> | undefined {
  const entries = new Map<string, number>();
  const spaces = (i: number): number => {
    while (v.charCodeAt(i) === 32) i++;
    return i;
  };
  let i = spaces(1);
  if (v[i] === '}') i++;
  else
    for (;;) {
      const key = FLOW_KEY.exec(v.slice(i));
      if (!key || REFUSED_KEY.test(key[1]!) || entries.has(key[1]!)) return undefined;
      i += key[0].length;
      const rest = v.slice(i);
      const quoted = rest[0] === '"' ? DOUBLE_QUOTED.exec(rest) : rest[0] === "'" ? SINGLE_QUOTED.exec(rest) : null;
      const length = quoted ? quoted[0].length : (FLOW_PLAIN.exec(rest)?.[0].trimEnd().length ?? 0);
      if (length === 0) return undefined;
      entries.set(key[1]!, base + i);
      i = spaces(i + length);
      if (v[i] === '}') {
        i++;
        break;
      }
      if (v[i] !== ',') return undefined;
      i = spaces(i + 1);
    }
  return /^(?: +#.*| *)$/.test(v.slice(i)) ? entries : undefined;
}

/**
 * Where the yaml package puts the value at `segments` (keys only): a scalar on its key's line, or
 * the first line of the block below the key. Undefined when the path is not a chain of keys found
 * on lines of their own, or its value is not written (an empty value's position is the full
 * parser's to give).
 */
function locateValue(lines: readonly Line[], segments: readonly Segment[]): Position | undefined {
  let from = 0;
  let to = lines.length;
  let level = 0;
  for (const [k, seg] of segments.entries()) {
    if (typeof seg !== 'string') return undefined;
    let at = -1;
    for (let i = from; i < to; i++) {
      const l = lines[i]!;
      if (l.indent === level && l.dashes === 0 && l.key === seg) {
        at = i;
        break;
      }
    }
    if (at < 0) return undefined;
    const line = lines[at]!;
    let end = at + 1;
    while (end < to && lines[end]!.indent > level) end++;
    const child = lines[at + 1];
    if (line.flow && k === segments.length - 2) {
      const last = segments[k + 1];
      const col = typeof last === 'string' ? line.flow.get(last) : undefined;
      return col === undefined ? undefined : { line: line.n, column: col + 1 };
    }
    if (k === segments.length - 1) {
      if (line.valueCol !== undefined) return { line: line.n, column: line.valueCol + 1 };
      return end > at + 1 && child ? { line: child.n, column: child.indent + 1 } : undefined;
    }
    if (line.valueCol !== undefined || end === at + 1 || !child || child.dashes > 0) return undefined;
    from = at + 1;
    to = end;
    level = child.indent;
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Every document's value as js-yaml reads it with the core schema's scalars; undefined on any error or warning. */
function jsYamlValues(text: string): unknown[] | undefined {
  const { loadAll } = jsYaml();
  let warned = false;
  try {
    const values = loadAll(text, undefined, {
      schema: coreSchema(),
      json: false,
      onWarning: () => {
        warned = true;
      },
    });
    return warned ? undefined : values;
  } catch {
    return undefined;
  }
}

let lib: typeof JsYaml | undefined;
let schema: JsYaml.Schema | undefined;

function jsYaml(): typeof JsYaml {
  return (lib ??= createRequire(import.meta.url)('js-yaml') as typeof JsYaml);
}

/**
 * js-yaml's failsafe schema (strings, sequences, mappings) with the yaml package's own core-schema
 * scalar tags, in its order: a plain scalar resolves to what the full path resolves it to (`1.10`
 * is the number 1.1 on both, `0o14` 12, `yes` a string).
 */
function coreSchema(): JsYaml.Schema {
  if (schema) return schema;
  const { FAILSAFE_SCHEMA, Type } = jsYaml();
  const { Schema } = yamlLib();
  const implicit = new Schema({ schema: 'core' }).tags.flatMap((tag, i) => {
    if (!('test' in tag) || !tag.test || !tag.resolve) return [];
    const { test, resolve } = tag as { test: RegExp; resolve: (s: string, onError: (m: string) => void, o: object) => unknown };
    return [
      new Type(`${tag.tag}#${i}`, {
        kind: 'scalar',
        resolve: (data: unknown) => typeof data === 'string' && test.test(data),
        // A float comes back as a Scalar node (it keeps `1.10`'s digits for writing back): its value is the datum.
        construct: (data: string) => {
          const v = resolve(
            data,
            (m) => {
              throw new Error(m);
            },
            { intAsBigInt: false },
          );
          return isScalar(v) ? v.value : v;
        },
      }),
    ];
  });
  return (schema = FAILSAFE_SCHEMA.extend({ implicit }));
}
