/**
 * The last verified revision, kept in the state directory so `range` mode starts from it after a
 * restart (a fresh start would otherwise check only the head and let an unsigned commit behind it
 * through) and so the last verified manifests stay in force when the agent comes back up.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { writeAtomic } from '../../state/durable-file.js';
import { join } from 'node:path';

export interface VerifiedRevision {
  /** Source URL (or directory) and ref the revision belongs to: another source starts afresh. */
  source: string;
  ref: string;
  revision: string;
  signer: string | null;
  verifiedAt: string;
}

const FILE = 'source-verification.json';

export async function loadVerifiedRevision(stateDir: string, source: string, ref: string): Promise<VerifiedRevision | null> {
  const text = await readFile(join(stateDir, FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as Partial<VerifiedRevision>;
    if (v.source !== source || v.ref !== ref || typeof v.revision !== 'string' || !/^[0-9a-f]{40,64}$/.test(v.revision)) return null;
    return {
      source,
      ref,
      revision: v.revision,
      signer: typeof v.signer === 'string' ? v.signer : null,
      verifiedAt: String(v.verifiedAt ?? ''),
    };
  } catch {
    // A torn or hand-edited file: start as on a first run (head only), never crash.
    return null;
  }
}

/** Written atomically (temp file + rename), so a crash leaves the old or the new record. */
export async function saveVerifiedRevision(stateDir: string, v: VerifiedRevision): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  await writeAtomic(join(stateDir, FILE), `${JSON.stringify(v, null, 2)}\n`);
}
