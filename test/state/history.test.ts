/**
 * The report's history in the state (docs/reports.md#history): one journal record per event,
 * replayed after a restart (journal only, and after compaction into the snapshot), the same on
 * remote state (Azurite), bounded by its caps, constant bytes per event however long it runs, and
 * never making a saved plan stale.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { describe, expect, it } from 'vitest';
import { inventoryDigest } from '../../src/plan/hash.js';
import { AzureBlobBackend } from '../../src/state/azblob-backend.js';
import { DRIFT_CAP, GATE_CAP, ROLLOUT_CAP, findRollout } from '../../src/state/history.js';
import type { HistoryEvent, RolloutStart } from '../../src/state/history.js';
import { InventoryStore, loadInventory, readBackend } from '../../src/state/inventory-store.js';
import { useAzurite } from '../support/azurite.js';
import { tempDir } from '../support/repo.js';

const rollout = (i: number): RolloutStart => ({
  deploymentId: `d-${i}`,
  key: `Deployment/app-${i}`,
  flow: 'app',
  flowId: 'f-1',
  app: 'App',
  appId: 'a-1',
  version: `1.${i}`,
  packageId: `p-${i}`,
  waves: [['t1'], ['t2']],
  delays: [24, 48],
  startedAt: '2026-11-01T00:00:00.000Z',
});

const timeline = (id: string): HistoryEvent[] => [
  { type: 'wave', deploymentId: id, wave: 1, at: '2026-11-01T00:00:00.000Z', by: 'service' },
  {
    type: 'gate',
    deploymentId: id,
    entry: { at: '2026-11-01T06:00:00.000Z', action: 'hold', wave: 1, by: 'gate', reason: 'Contoso 40% failed' },
  },
  { type: 'gate', deploymentId: id, entry: { at: '2026-11-01T08:00:00.000Z', action: 'resume', wave: 1, by: 'command', reason: 'fixed' } },
  { type: 'wave', deploymentId: id, wave: 2, at: '2026-11-01T14:00:00.000Z', by: 'gate' },
  { type: 'complete', deploymentId: id, at: '2026-11-02T14:00:00.000Z' },
  { type: 'counts', deploymentId: id, at: '2026-11-02T14:00:00.000Z', tenants: { t1: { installed: 10, failed: 1, pending: 0 } } },
];

async function record(store: InventoryStore, events: HistoryEvent[]): Promise<void> {
  for (const e of events) await store.history(e);
  await store.flush();
}

describe('history in the state', () => {
  it('survives a restart from the journal alone and after compaction, unchanged', async () => {
    const dir = await tempDir('packsync-history-');
    const store = await InventoryStore.open(dir);
    await record(store, [{ type: 'rollout', rollout: rollout(1) }, ...timeline('d-1'), { type: 'drift', record: drift('Flow/app', 0) }]);
    // Not closed: only the journal holds it (a crash after the last write).
    const fromJournal = await loadInventory(dir);
    expect(fromJournal.history).toEqual(store.inventory.history);
    const r = findRollout(fromJournal.history, 'd-1')!;
    expect(r.reached.map((w) => `${w.wave}:${w.by}`)).toEqual(['1:service', '2:gate']);
    expect(r.gates.map((g) => g.action)).toEqual(['hold', 'resume']);
    expect(r.completedAt).toBe('2026-11-02T14:00:00.000Z');
    expect(r.counts?.tenants.t1).toEqual({ installed: 10, failed: 1, pending: 0 });
    await store.close();
    const snapshot = JSON.parse(await readFile(join(dir, 'inventory.json'), 'utf8')) as { history: unknown };
    expect(snapshot.history).toEqual(fromJournal.history);
    expect(await readFile(join(dir, 'journal.jsonl'), 'utf8')).toBe('');
    expect((await loadInventory(dir)).history).toEqual(fromJournal.history);
  });

  it('early-promote-keeps-reason: a gate entry before its rollout is recorded survives a restart and is claimed by the rollout', async () => {
    const dir = await tempDir('packsync-history-');
    const store = await InventoryStore.open(dir);
    const entry = {
      at: '2026-11-01T01:00:00.000Z',
      action: 'promote',
      wave: 1,
      by: 'command',
      reason: 'pilot looks fine (ticket 42)',
    } as const;
    await record(store, [
      { type: 'gate', deploymentId: 'd-1', entry },
      { type: 'wave', deploymentId: 'd-1', wave: 2, at: entry.at, by: 'command' },
    ]);
    await store.close();
    // Compacted into the snapshot and read back before the rollout is recorded.
    const reopened = await InventoryStore.open(dir);
    expect(reopened.inventory.history?.earlyGates).toEqual([{ deploymentId: 'd-1', entry }]);
    await record(reopened, [{ type: 'rollout', rollout: rollout(1) }]);
    const r = findRollout(reopened.inventory.history, 'd-1')!;
    expect(r.gates).toEqual([entry]);
    expect(r.reached).toEqual([{ wave: 2, at: entry.at, by: 'command' }]);
    expect(reopened.inventory.history?.earlyGates).toBeUndefined();
    await reopened.close();
  });

  it('is bounded: the newest rollouts, gate entries and drift records are kept, trimmed in batches', async () => {
    const dir = await tempDir('packsync-history-');
    const store = await InventoryStore.open(dir);
    const n = ROLLOUT_CAP + ROLLOUT_CAP / 4 + 1;
    for (let i = 0; i < n; i++) await store.history({ type: 'rollout', rollout: rollout(i) });
    for (let i = 0; i < GATE_CAP + 5; i++)
      await store.history({
        type: 'gate',
        deploymentId: `d-${n - 1}`,
        entry: { at: `t${i}`, action: 'skip-wave', wave: 1, by: 'gate', reason: `#${i}` },
      });
    for (let i = 0; i < DRIFT_CAP * 2; i++) await store.history({ type: 'drift', record: drift(`Flow/f-${i % 7}`, i) });
    await store.close();
    const h = (await loadInventory(dir)).history!;
    expect(h.rollouts.length).toBeLessThanOrEqual(ROLLOUT_CAP + ROLLOUT_CAP / 4);
    expect(h.rollouts.at(-1)!.deploymentId).toBe(`d-${n - 1}`);
    expect(findRollout(h, 'd-0')).toBeUndefined();
    expect(findRollout(h, `d-${n - 1}`)!.gates.map((g) => g.reason)).toEqual(Array.from({ length: GATE_CAP }, (_, i) => `#${i + 5}`));
    expect(h.drift.length).toBeLessThanOrEqual(DRIFT_CAP + DRIFT_CAP / 4);
    expect(h.drift.at(-1)!.what).toBe(`#${DRIFT_CAP * 2 - 1}`);
  });

  it('costs the same bytes per event at the ten-thousandth as at the first (one journal line, no rewrite)', async () => {
    const dir = await tempDir('packsync-history-');
    const store = await InventoryStore.open(dir);
    const step = async (i: number): Promise<number> => {
      const before = store.stats.bytesAppended;
      await store.history({ type: 'drift', record: drift('Flow/app', i) });
      await store.flush();
      return store.stats.bytesAppended - before;
    };
    const first = await step(10_000);
    for (let i = 0; i < 10_000; i++) await store.history({ type: 'drift', record: drift('Flow/app', i) });
    await store.flush();
    // Only the record's sequence number grew (from 1 digit to 5).
    expect(await step(10_001)).toBe(first + 4);
    expect(store.stats.snapshots).toBe(0);
    await store.close();
  });

  it('does not make a saved plan stale: the plan digest of the inventory leaves the history out', async () => {
    const dir = await tempDir('packsync-history-');
    const store = await InventoryStore.open(dir);
    const before = inventoryDigest(store.inventory);
    await record(store, [{ type: 'rollout', rollout: rollout(1) }]);
    expect(inventoryDigest(store.inventory)).toBe(before);
    await store.close();
  });
});

describe('history on remote state (Azurite)', () => {
  const azurite = useAzurite();

  it('is read back by a new process from the append blob, and from the snapshot blob after compaction', async () => {
    const container = BlobServiceClient.fromConnectionString(azurite().connectionString).getContainerClient('history');
    const open = (): AzureBlobBackend => new AzureBlobBackend(container, 'prod', 'azblob://history/prod');
    const backend = open();
    await backend.lock(() => undefined);
    const store = await InventoryStore.openOn(backend);
    await record(store, [{ type: 'rollout', rollout: rollout(7) }, ...timeline('d-7')]);
    const midway = (await readBackend(open())).inventory.history;
    expect(findRollout(midway, 'd-7')?.gates.map((g) => g.reason)).toEqual(['Contoso 40% failed', 'fixed']);
    await store.close();
    await backend.unlock();
    const after = (await readBackend(open())).inventory.history;
    expect(after).toEqual(midway);
  }, 60_000);
});

function drift(key: string, i: number): { at: string; key: string; what: string; action: 'healed'; revision: null } {
  return { at: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(), key, what: `#${i}`, action: 'healed', revision: null };
}
