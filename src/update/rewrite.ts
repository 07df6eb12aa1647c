/**
 * Rewrites `version:` scalars of Package documents (or a Baseline's app entries) in place, every other byte of the file as it
 * was (comments, order, quoting, line endings): the yaml package's parser gives the scalar's source
 * range, and only that range is replaced.
 */
import { isScalar, parse, parseAllDocuments } from 'yaml';

/** One version edit of a file: a Package by name, or a scalar at a path of a document (a Baseline's app entry). */
export type VersionEdit = { version: string } & ({ packageName: string } | { index: number; path: readonly (string | number)[] });

/** Where one edit's scalar is in a text, and what it becomes. */
export interface VersionRange {
  start: number;
  end: number;
  version: string;
}

/**
 * The range of each edit's scalar in `text` (in the order of `edits`), from one parse of it: every
 * edit of a file from one parse (a patch-Tuesday file of 50 packages is parsed once, not once per
 * package), the replacing done after (`withVersions`).
 */
export function versionRanges(text: string, edits: readonly VersionEdit[]): VersionRange[] {
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
    ranges.push({ start: node.range[0], end: node.range[1], version: e.version });
  }
  return ranges;
}

/**
 * `text` with some of its scalars replaced (`ranges` from `versionRanges` of this same text; they
 * never overlap): replaced from the end, so earlier offsets hold.
 */
export function withVersions(text: string, ranges: readonly VersionRange[]): string {
  let out = text;
  for (const r of [...ranges].sort((a, b) => b.start - a.start))
    out = out.slice(0, r.start) + scalarText(text[r.start], r.version) + out.slice(r.end);
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
