/**
 * A directory source's revision: what a pass names when no git commit does (plan headers, the
 * agent's log lines and status). It is a digest of what the load read, made from digests the load
 * already has (docs/architecture.md, "The engine"):
 *
 * - each manifest file the path covers: its name and the sha256 of its bytes (the parse cache's key);
 * - each custom package's content directory: its digest (content.ts);
 * - the documents Baselines generated: they depend on the time exceptions expire against as well as
 *   on the files, so their values are digested (a few objects per Baseline entry, as JSON: they
 *   are built in a fixed order from the files and the time).
 *
 * Before, the whole desired set was serialised with sorted keys into the digest: ~230 MiB of
 * allocation and ~0.2 s of CPU at 19,750 objects, a third of a fleet no-op's garbage
 * (docs/performance.md, fleet-cli). A file edited without changing what it means (a comment, the
 * key order) now gives a new revision; the plan of that revision is empty.
 */
import { createHash } from 'node:crypto';
import type { DesiredModel } from './model.js';
import { compare } from './sort-problems.js';

export interface RevisionInput {
  /** The manifest files of the desired set (not those that only lend names), with the sha256 of their bytes. */
  files: readonly { file: string; sha: string }[];
  desired: DesiredModel;
  /** The values of the documents Baselines generated into the desired set. */
  generated: readonly unknown[];
}

export function loadRevision(input: RevisionInput): string {
  const h = createHash('sha256').update('packsync-revision/2\n');
  for (const f of byName(input.files)) h.update(`file\t${f.file}\t${f.sha}\n`);
  for (const p of input.desired.packages) if (p.content) h.update(`content\t${p.metadata.name}\t${p.content.digest}\n`);
  // Generated in a fixed order from the files and the time, so JSON's own key order is stable here.
  if (input.generated.length > 0) h.update(`generated\t${JSON.stringify(input.generated)}\n`);
  return `sha256:${h.digest('hex').slice(0, 16)}`;
}

/**
 * The files a load read under `root`, by name and the sha256 of their bytes (undefined when one has
 * no digest): how the parse cache knows a load reads exactly what its last valid load read.
 */
export function filesKey(root: string, files: readonly { file: string; sha?: string }[]): string | undefined {
  const h = createHash('sha256').update(`packsync-files/1\n${root}\n`);
  for (const f of byName(files)) {
    if (f.sha === undefined) return undefined;
    h.update(`${f.file}\t${f.sha}\n`);
  }
  return h.digest('hex');
}

/** The files in order of their names (the loader's `compare`): both digests read them so. */
function byName<T extends { file: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => compare(a.file, b.file));
}
