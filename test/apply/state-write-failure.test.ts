/**
 * A write the state cannot record is never made (issue 20.14, security review 3 finding 12): once a
 * state write failed (disk full: ENOSPC from the journal append), no API write starts — the action
 * that hits it fails with STATE_WRITE_FAILED and no further action starts (regression: after the
 * failed record of an add-deployment, the apply went on to skip a wave). The disk is played by a
 * directory backend whose appends fail from the Nth on; everything else is real: the simulator over
 * HTTP, the engine, the executor. Every N is tried, one action at a time and 32 at once, so the
 * failure lands at each point of the apply (a case whose batched records never reach the Nth append
 * has nothing to check).
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { PacksyncApi } from '../../src/api/operations.js';
import { reconcile } from '../../src/engine/reconcile.js';
import { DirectoryBackend } from '../../src/state/dir-backend.js';
import { InventoryStore } from '../../src/state/inventory-store.js';
import type { State } from '../../src/state/open-state.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';

const WRITES = /^(create|import|add|start|stop|skip|update|delete|upload|finalize|refresh)/;

/** A state directory whose journal appends fail with ENOSPC from the `failAt`-th on; the order of events is recorded. */
function fullDisk(dir: string, failAt: number, events: string[], count: { appends: number }): State {
  const backend = new DirectoryBackend(dir);
  const append = backend.append.bind(backend);
  backend.append = (text: string, sync: boolean, expectedBytes: number) => {
    if (++count.appends >= failAt)
      return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    return append(text, sync, expectedBytes);
  };
  return {
    description: `state directory ${dir}`,
    location: dir,
    localDir: dir,
    read: async () => (await InventoryStore.openOn(backend)).inventory,
    openStore: async () => {
      const store = await InventoryStore.openOn(backend);
      store.stopSignal.addEventListener('abort', () => events.push('state-failed'));
      return store;
    },
    lock: () => Promise.resolve(),
    close: () => Promise.resolve(),
    held: () => true,
  } as State;
}

/** The API, every write call recorded in `events` as it starts. */
function recorded(api: PacksyncApi, events: string[]): PacksyncApi {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string' || !WRITES.test(prop)) return v;
      return (...args: unknown[]) => {
        events.push(`write:${prop}`);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe('an apply whose state can no longer be written', () => {
  for (const [failAt, concurrency] of [1, 2, 3, 4, 5, 6, 7, 8].flatMap(
    (n) =>
      [
        [n, 1],
        [n, 32],
      ] as const,
  )) {
    it(`starts no API write after the state failed (append ${failAt} fails, ${concurrency} at once)`, async () => {
      const sim = await startTestSimulator();
      const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key });
      try {
        const events: string[] = [];
        const count = { appends: 0 };
        const stateDir = await tempDir('packsync-full-');
        const out = await reconcile({
          path: await writeRepo(),
          api: recorded(api, events),
          stateDir,
          state: fullDisk(stateDir, failAt, events, count),
          planOptions: { prune: false, pruneAll: false, adopt: false, allowReplace: false, drift: 'heal' },
          apply: true,
          applyOptions: { concurrency },
        }).catch((e: unknown) => ({ kind: 'error' as const, e }));
        const failed = events.indexOf('state-failed');
        // Batched records (32 at once) may need fewer appends than failAt: then the disk never filled.
        if (count.appends < failAt) return;
        expect(failed, JSON.stringify(events)).toBeGreaterThanOrEqual(0);
        expect(events.slice(failed + 1).filter((e) => e.startsWith('write:'))).toEqual([]);
        if (out.kind === 'planned') expect(out.result?.failed).toBeGreaterThan(0);
      } finally {
        await api.close();
        await sim.close();
      }
    });
  }
});
