/**
 * A locked pass carries out the `promote`/`resume` requests queued while its process held the state
 * (`state/request-queue.ts`), before it plans, so the pass already sees the released hold or the new
 * wave. Each request is claimed by exactly one pass; its gate-log entry names the request, so a pass
 * that crashed after carrying one out but before recording its outcome never carries it out twice.
 */
import type { PacksyncApi } from '../api/operations.js';
import type { InventoryStore } from '../state/inventory-store.js';
import type { GateLogEntry } from '../state/inventory-types.js';
import type { State } from '../state/open-state.js';
import { errorCode, errorMessage } from '../util/errors.js';
import { runGateCommand } from './gate-actions.js';

/** A promote or resume this pass carried out: the gate-log entry it wrote. */
export interface CarriedCommand {
  key: string;
  entry: GateLogEntry;
}

/**
 * The requests this pass carried out. The agent reports them from here, in this pass: a resumed
 * stopped deployment has no gate report until the pass after the one that starts it.
 */
export async function carryOutRequests(state: State | undefined, store: InventoryStore, api: PacksyncApi): Promise<CarriedCommand[]> {
  const queue = heldQueue(state);
  if (!queue) return [];
  const carried: CarriedCommand[] = [];
  for (const id of await queue.pending()) {
    const r = await queue.claim(id);
    if (!r) continue;
    if (store.inventory.objects[r.key]?.gateLog?.some((e) => e.request === id)) {
      await queue.finish(id, { ok: true, lines: [`${r.command} of ${r.key} was already carried out`] });
      continue;
    }
    try {
      const lines = await runGateCommand(
        { command: r.command, key: r.key, reason: r.reason, request: id, ignoreWindowsActor: r.ignoreWindowsActor },
        store,
        api,
      );
      await store.flush();
      // A promote that broke glass logs two entries (promote, ignore-windows): both are reported.
      for (const entry of store.inventory.objects[r.key]?.gateLog?.filter((e) => e.request === id) ?? [])
        carried.push({ key: r.key, entry });
      await queue.finish(id, { ok: true, lines });
    } catch (e) {
      await queue.finish(id, { ok: false, code: errorCode(e), lines: [errorMessage(e)] });
    }
  }
  return carried;
}

/** Whether a pass will carry out requests before it reads (it then reads after them, engine/reconcile.ts). */
export async function requestsPending(state: State | undefined): Promise<boolean> {
  const queue = heldQueue(state);
  return queue ? (await queue.pending()).length > 0 : false;
}

/** The queue a pass carries out: only while this process holds the state's lock. */
function heldQueue(state: State | undefined): State['requests'] | undefined {
  return state?.held() ? state.requests : undefined;
}
