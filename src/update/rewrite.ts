/**
 * Rewrites one `version:` scalar of one Package document in place, every other byte of the file as it
 * was (comments, order, quoting, line endings): the yaml package's parser gives the scalar's source
 * range, and only that range is replaced.
 */
import { isScalar, parse, parseAllDocuments } from 'yaml';

/** The new text with the scalar at `path` of the `index`th document set to `version` (a Baseline's app entry). */
export function rewriteVersionAt(text: string, index: number, path: readonly (string | number)[], version: string): string {
  const doc = parseAllDocuments(text)[index];
  const node = doc && 'getIn' in doc ? doc.getIn(path, true) : undefined;
  if (!isScalar(node) || !node.range) throw new Error(`no version scalar at ${path.join('.')} of document ${index + 1}`);
  const [start, end] = node.range;
  return text.slice(0, start) + scalarText(text[start], version) + text.slice(end);
}

/** The new text of `text` with the package's `spec.catalog.version` set to `version`; throws when it cannot be found. */
export function rewriteVersion(text: string, packageName: string, version: string): string {
  for (const doc of parseAllDocuments(text)) {
    if (!('getIn' in doc)) continue;
    if (doc.getIn(['kind']) !== 'Package' || doc.getIn(['metadata', 'name']) !== packageName) continue;
    const node = doc.getIn(['spec', 'catalog', 'version'], true);
    if (!isScalar(node) || !node.range) break;
    const [start, end] = node.range;
    return text.slice(0, start) + scalarText(text[start], version) + text.slice(end);
  }
  throw new Error(`Package ${packageName} has no spec.catalog.version to update`);
}

/** The version as a scalar in the quoting the file used: quoted stays quoted; plain stays plain unless YAML would read it as something else (24.10 is a number). */
function scalarText(first: string | undefined, version: string): string {
  if (first === "'") return `'${version.replace(/'/g, "''")}'`;
  if (first === '"') return JSON.stringify(version);
  return parse(version) === version && !/[:#\s]/.test(version) ? version : JSON.stringify(version);
}
