/**
 * A locked pass carries out the `promote`/`resume` requests queued while its process held the state
 * (`state/request-queue.ts`), before it plans, so the pass already sees the released hold or the new
 * wave. Each request is claimed by exactly one pass; its gate-log entry names the request, so a pass
 * that crashed after carrying one out but before recording its outcome never carries it out twice.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { InventoryStore } from '../state/inventory-store.js';
import type { State } from '../state/open-state.js';
import { errorCode, errorMessage } from '../util/errors.js';
import { runGateCommand } from './gate-actions.js';

/** How many requests this pass carried out or refused. */
export async function carryOutRequests(state: State | undefined, store: InventoryStore, api: PacksyncApi): Promise<number> {
  const queue = state?.requests;
  if (!queue || !state.held()) return 0;
  let n = 0;
  for (const id of await queue.pending()) {
    const r = await queue.claim(id);
    if (!r) continue;
    n++;
    if (store.inventory.objects[r.key]?.gateLog?.some((e) => e.request === id)) {
      await queue.finish(id, { ok: true, lines: [`${r.command} of ${r.key} was already carried out`] });
      continue;
    }
    try {
      const lines = await runGateCommand({ command: r.command, key: r.key, reason: r.reason, request: id }, store, api);
      await store.flush();
      await queue.finish(id, { ok: true, lines });
    } catch (e) {
      await queue.finish(id, { ok: false, code: errorCode(e), lines: [errorMessage(e)] });
    }
  }
  return n;
}
