/**
 * The write calls of an action that take more than one request: a create that must never be sent
 * twice blindly, a delete that forgets what it took with it, and a content upload whose every chunk
 * and finalize counts as a write (the apply summary's count is of calls, as the service sees them).
 */
import type { PacksyncApi } from '../api/operations.js';
import type { ChunkClient } from '../api/upload.js';
import { errorCode } from '../util/errors.js';
import type { ActionDeps } from './action-deps.js';

/** Every chunk and the finalize is a write call of its own (the simulator journals each). */
export function countedChunks(api: PacksyncApi, countWrite: () => void): ChunkClient {
  return {
    uploadContentChunk: (...args) => {
      countWrite();
      return api.uploadContentChunk(...args);
    },
    finalizeContent: (...args) => {
      countWrite();
      return api.finalizeContent(...args);
    },
  };
}

/**
 * "Did the ambiguous write land?" in one place (docs/reconcile.md, "POST retry safety"): a write whose
 * answer was lost (`API_OUTCOME_UNKNOWN`), or whose retry met its own first attempt (`API_CONFLICT`,
 * where `codes` allows it), is judged by the live object. Landed: done. Not landed: sent once more when
 * `again` is true (a write that cannot repeat harmlessly checks first), else the error stands.
 */
export async function writeOnce(o: {
  call: () => Promise<unknown>;
  codes: readonly string[];
  landed: () => Promise<boolean>;
  again?: boolean;
}): Promise<void> {
  try {
    await o.call();
  } catch (e) {
    if (!o.codes.includes(errorCode(e))) throw e;
    if (await o.landed()) return;
    if (!o.again) throw e;
    await o.call();
  }
}

/**
 * Runs a create. When its outcome is unknown (the request may have taken effect but the answer was
 * lost), looks the object up live: found → adopt it; not found → the create did not happen, so it
 * is sent once more. Never more than two creates for one action.
 */
export async function createOnce(d: ActionDeps, create: () => Promise<string>, lookup: () => Promise<string | undefined>): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    d.countWrite();
    try {
      return await create();
    } catch (e) {
      if (errorCode(e) !== 'API_OUTCOME_UNKNOWN' || attempt >= 2) throw e;
      const found = await lookup();
      if (found) return found;
    }
  }
}

/**
 * Deletes a live object and forgets the state entry that owns it (if it still names that id), and
 * first the entries of what the delete took with it (a flow's deployments), each if it still names
 * the object it named when planned: a deployment already added again elsewhere keeps its entry.
 */
export async function deleteOwned(
  d: ActionDeps,
  key: string,
  id: string,
  del: () => Promise<void>,
  alsoGone: readonly { key: string; id: string }[] = [],
): Promise<void> {
  d.countWrite();
  try {
    await del();
  } catch (e) {
    // Already gone (deleted outside, or a retry of a delete that took effect) is the goal state.
    if (errorCode(e) !== 'API_NOT_FOUND') throw e;
  }
  // The object's own entry goes last: a crash before it leaves the next plan something to finish.
  for (const g of alsoGone) if (d.store.inventory.objects[g.key]?.id === g.id) await d.store.remove(g.key);
  if (d.store.inventory.objects[key]?.id === id) await d.store.remove(key);
}
