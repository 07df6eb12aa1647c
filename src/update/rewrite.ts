/**
 * Rewrites `version:` scalars of Package documents (or a Baseline's app entries) in place, every other byte of the file as it
 * was (comments, order, quoting, line endings): the yaml package's parser gives the scalar's source
 * range, and only that range is replaced.
 */
import { CST, isScalar, parse, parseAllDocuments, Parser, Scalar } from 'yaml';
import { isForeignApiVersion } from '../manifests/check-document.js';

/** One version edit of a file: a Package by name, or a scalar at a path of a document (a Baseline's app entry). */
export type VersionEdit = { version: string } & ({ packageName: string } | { index: number; path: readonly (string | number)[] });

/** Where one edit's scalar is in a text, and what it becomes. */
export interface VersionRange {
  start: number;
  end: number;
  version: string;
  /** Written as is: the content of a block scalar, where quotes would be part of the value. */
  raw?: true;
}

/**
 * The range of each edit's scalar in `text` (in the order of `edits`), from one parse of it: every
 * edit of a file from one parse (a patch-Tuesday file of 50 packages is parsed once, not once per
 * package), the replacing done after (`withVersions`).
 */
export function versionRanges(text: string, edits: readonly VersionEdit[], opts: { tokens?: boolean } = {}): VersionRange[] {
  // `tokens: false`: always the composed documents (the test comparing the two ways).
  return (opts.tokens === false ? undefined : tokenVersionRanges(text, edits)) ?? composedRanges(text, edits);
}

/** An edit whose scalar the load located: where it starts (1-based, as positions are) and what it reads. */
export interface PlacedEdit {
  line: number;
  column: number;
  /** The version the load read there. */
  from: string;
  version: string;
}

/**
 * The ranges of edits whose scalars the load already located (a Package's `spec.catalog.version`
 * position): no parse of the file at all. Each place is checked to hold exactly what the load read,
 * as the value of a `version:` key on one line (a plain scalar of version characters, or a quoted one
 * without escapes); undefined on anything else, and `versionRanges` decides. Parsing the 20 files of
 * a patch Tuesday was ~0.4 s of `update --commit`'s CPU after its reads (docs/performance.md).
 */
export function placedVersionRanges(text: string, edits: readonly PlacedEdit[]): VersionRange[] | undefined {
  const starts = lineStarts(text);
  const ranges: VersionRange[] = [];
  for (const e of edits) {
    const lineStart = starts[e.line - 1];
    if (lineStart === undefined) return undefined;
    const start = lineStart + e.column - 1;
    if (!VERSION_KEY.test(text.slice(lineStart, start))) return undefined;
    const end = scalarEnd(text, start, e.from);
    if (end === undefined) return undefined;
    ranges.push({ start, end, version: e.version });
  }
  return ranges;
}

/** What may precede the value on its line: a `version` key (block or flow mapping) and its indicator. */
const VERSION_KEY = /(?:^|[ \t{,])version[ \t]*:[ \t]*$/;
/** A plain version as written (no space, flow indicator or comment sign inside). */
const PLAIN_VERSION = /[A-Za-z0-9][A-Za-z0-9._+~-]*/y;
/** After a scalar on its line: the end of the line, a comment (after a space, as YAML wants), or the flow mapping going on. */
const AFTER = /[ \t]*(?:\r?\n|$)|[ \t]+#[^\n]*(?:\n|$)|[ \t]*[,}]/y;

/** Offset of each line's first character (lines end at `\n`; a `\r` before it stays on the line). */
function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** The end of the one-line scalar at `start` when it reads exactly `value`, else undefined. */
function scalarEnd(text: string, start: number, value: string): number | undefined {
  const q = text[start];
  let end: number;
  if (q === "'" || q === '"') {
    const close = text.indexOf(q, start + 1);
    // A quote inside (`''`) or an escape is the parsers' to read: the plain cases only.
    if (close === -1 || text[close + 1] === q || text.slice(start + 1, close) !== value || /[\\\r\n]/.test(value)) return undefined;
    end = close + 1;
  } else {
    PLAIN_VERSION.lastIndex = start;
    const m = PLAIN_VERSION.exec(text);
    if (!m || m[0] !== value) return undefined;
    end = start + value.length;
  }
  AFTER.lastIndex = end;
  return AFTER.test(text) ? end : undefined;
}

/** `versionRanges` from the composed documents: any YAML, and the errors naming what is missing. */
function composedRanges(text: string, edits: readonly VersionEdit[]): VersionRange[] {
  const docs = parseAllDocuments(text);
  const ranges: VersionRange[] = [];
  for (const e of edits) {
    const node: unknown = 'packageName' in e ? packageVersionNode(docs, e.packageName) : docAt(docs, e.index)?.getIn(e.path, true);
    if (!isScalar(node) || !node.range) {
      const what =
        'packageName' in e
          ? `Package ${e.packageName} has no spec.catalog.version`
          : `no version scalar at ${e.path.join('.')} of document ${e.index + 1}`;
      throw new Error(`${what} to update`);
    }
    ranges.push(blockContent(text, node, e.version) ?? { start: node.range[0], end: node.range[1], version: e.version });
  }
  return ranges;
}

/**
 * A block scalar (`version: >-` with the version on the next line): only its one content line is
 * replaced, as written (`raw`), so the indicator, the indentation and the line breaks after it stay
 * as they were (its range runs to the next key's line: replacing all of it joined the two lines).
 * Undefined for any other scalar, and for a block of more than one line (the whole range then).
 */
function blockContent(text: string, node: Scalar, version: string): VersionRange | undefined {
  if (node.type !== Scalar.BLOCK_FOLDED && node.type !== Scalar.BLOCK_LITERAL) return undefined;
  const [start, valueEnd] = node.range!;
  const header = text.indexOf('\n', start);
  if (header === -1 || header >= valueEnd) return undefined;
  const line = /[ \t]*([^\r\n]*?)[ \t]*(?:\r?\n|$)/y;
  line.lastIndex = header + 1;
  const m = line.exec(text);
  if (!m || m[1] === '' || m[1] !== String(node.value).replace(/\r?\n+$/, '')) return undefined;
  // Nothing but blank lines may follow the one content line inside the block.
  if (!/^\s*$/.test(text.slice(line.lastIndex, valueEnd))) return undefined;
  const at = header + 1 + m[0].indexOf(m[1]);
  return { start: at, end: at + m[1].length, version, raw: true };
}

/**
 * `text` with some of its scalars replaced (`ranges` from `versionRanges` of this same text; they
 * never overlap): replaced from the end, so earlier offsets hold.
 */
export function withVersions(text: string, ranges: readonly VersionRange[]): string {
  let out = text;
  for (const r of [...ranges].sort((a, b) => b.start - a.start))
    out = out.slice(0, r.start) + (r.raw ? r.version : scalarText(text[r.start], r.version)) + out.slice(r.end);
  return out;
}

type Docs = ReturnType<typeof parseAllDocuments>;

function docAt(docs: Docs, index: number): Extract<Docs, unknown[]>[number] | undefined {
  const d = Array.isArray(docs) ? docs[index] : undefined;
  return d && 'getIn' in d ? d : undefined;
}

function packageVersionNode(docs: Docs, name: string): unknown {
  if (!Array.isArray(docs)) return undefined;
  for (const doc of docs) {
    if (!('getIn' in doc)) continue;
    // Another group's document is not a manifest (the loader skips it): never the one edited.
    if (isForeignApiVersion(doc.getIn(['apiVersion']))) continue;
    if (doc.getIn(['kind']) === 'Package' && doc.getIn(['metadata', 'name']) === name)
      return doc.getIn(['spec', 'catalog', 'version'], true);
  }
  return undefined;
}

/** The version as a scalar in the quoting the file used: quoted stays quoted; plain stays plain unless YAML would read it as something else (24.10 is a number). */
function scalarText(first: string | undefined, version: string): string {
  if (first === "'") return `'${version.replace(/'/g, "''")}'`;
  if (first === '"') return JSON.stringify(version);
  return parse(version) === version && !/[:#\s]/.test(version) ? version : JSON.stringify(version);
}

type Token = CST.Token;
type Item = CST.CollectionItem;

/**
 * `versionRanges` from the yaml package's CST alone, for Package edits in the usual shapes (block
 * or flow mappings, plain or quoted one-line scalars): composing the documents was ~25 ms of a
 * 50-package file, most of `update --commit`'s CPU after its reads (docs/performance.md,
 * patch-tuesday). Undefined, and the composed path decides, on anything else: an error token, a
 * Baseline edit, an anchor, tag or alias on the way, a key written twice, a multi-line scalar, a
 * package not found.
 */
export function tokenVersionRanges(text: string, edits: readonly VersionEdit[]): VersionRange[] | undefined {
  // Each Package document by name, the first of a name as the composed way finds it.
  const packages = new Map<string, Token>();
  const strings = new Map<string, string | undefined>();
  for (const t of new Parser().parse(text)) {
    if (t.type === 'error') return undefined;
    if (t.type !== 'document') continue;
    if (!t.value) return undefined;
    // Another group's document is not a manifest, as on the composed way; an apiVersion not read
    // as a string here is that way's to judge.
    const top = t.value;
    if ((top.type === 'block-map' || top.type === 'flow-collection') && top.items.some((i) => i.key && isKey(i.key, 'apiVersion'))) {
      const av = stringAt(top, ['apiVersion'], strings);
      if (av === undefined) return undefined;
      if (isForeignApiVersion(av)) continue;
    }
    const name = stringAt(top, ['metadata', 'name'], strings);
    const kind = stringAt(top, ['kind'], strings);
    // A kind or name that does not read as a string here (absent, `1.10`, `null`, behind an anchor
    // or tag) is the composed way's to compare: it compares the values the documents hold.
    if (name === undefined || kind === undefined) return undefined;
    if (kind === 'Package' && !packages.has(name)) packages.set(name, top);
  }
  const ranges: VersionRange[] = [];
  for (const e of edits) {
    if (!('packageName' in e)) return undefined;
    const doc = packages.get(e.packageName);
    const version = doc && tokenAt(doc, ['spec', 'catalog', 'version']);
    if (!version || !oneLine(version)) return undefined;
    const [start, end] = CST.resolveAsScalar(version).range;
    ranges.push({ start, end, version: e.version });
  }
  return ranges;
}

/** The token at a chain of keys (each key a one-line scalar, written once), or undefined. */
function tokenAt(node: Token, path: readonly string[]): Token | undefined {
  let at: Token | undefined = node;
  for (const key of path) {
    if (at?.type !== 'block-map' && !(at?.type === 'flow-collection' && at.start.source === '{')) return undefined;
    let found: Item | undefined;
    for (const i of at.items) {
      if (!i.key || !isKey(i.key, key)) continue;
      if (found) return undefined;
      found = i;
    }
    if (!found || !plainSeparator(found)) return undefined;
    at = found.value;
  }
  return at;
}

/** Whether a key token reads as `key` (the keys looked for are words a plain key reads as written). */
function isKey(t: Token, key: string): boolean {
  return t.type === 'scalar' ? t.source === key : oneLine(t) && CST.resolveAsScalar(t)?.value === key;
}

/**
 * The string a one-line scalar at a chain of keys holds as the documents hold it (a plain `1.10` is
 * a number, `null` is null: not strings), or undefined. `strings` memoises a plain scalar's reading.
 */
function stringAt(node: Token, path: readonly string[], strings: Map<string, string | undefined>): string | undefined {
  const t = tokenAt(node, path);
  if (!t || !oneLine(t)) return undefined;
  if (t.type !== 'scalar') return CST.resolveAsScalar(t)?.value;
  if (!strings.has(t.source)) {
    const v: unknown = parse(t.source);
    strings.set(t.source, typeof v === 'string' ? v : undefined);
  }
  return strings.get(t.source);
}

/** A plain or quoted scalar on one line. */
function oneLine(t: Token): t is CST.FlowScalar {
  return (
    (t.type === 'scalar' || t.type === 'single-quoted-scalar' || t.type === 'double-quoted-scalar') &&
    !t.source.includes('\n') &&
    !t.source.includes('\r')
  );
}

/** Only the `:`, spaces, newlines and comments between a key and its value: no anchor, tag or second indicator. */
function plainSeparator(i: Item): boolean {
  return (
    (i.start.length === 0 ||
      i.start.every((s) => s.type === 'space' || s.type === 'newline' || s.type === 'comment' || s.type === 'comma')) &&
    (i.sep ?? []).every((s) => s.type === 'map-value-ind' || s.type === 'space' || s.type === 'newline' || s.type === 'comment')
  );
}
