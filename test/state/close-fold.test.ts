/**
 * When a close folds the journal into a new snapshot (inventory-store.ts `foldDue`): always for a
 * small state, for a large one only once the journal holds half the snapshot's bytes, and
 * whatever its size when the append blob nears its block limit (Azurite). A pass that records a
 * little on a large state appends it and leaves the snapshot as it was; nothing is lost either way.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { describe, expect, it } from 'vitest';
import { AzureBlobBackend } from '../../src/state/azblob-backend.js';
import { InventoryStore, loadInventory, readBackend } from '../../src/state/inventory-store.js';
import type { InventoryEntry } from '../../src/state/inventory-types.js';
import { useAzurite } from '../support/azurite.js';
import { tempDir } from '../support/repo.js';

const entry = (i: number): InventoryEntry => ({
  kind: 'Flow',
  name: `flow-${i}`,
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  specHash: 'h'.repeat(64),
  spec: { name: `flow-${i}`, description: 'x'.repeat(300) },
  revision: 'r',
  updatedAt: '2026-11-28T00:00:00.000Z',
});

/** Fills `store` with 3,500 entries (a ~1.5 MB snapshot: above the size where every close folds) and closes it. */
async function fillLarge(store: InventoryStore): Promise<void> {
  for (let i = 0; i < 3500; i++) await store.put(entry(i));
  await store.close();
}

/** A large state in `dir`; returns its snapshot's size. */
async function largeState(dir: string): Promise<number> {
  await fillLarge(await InventoryStore.open(dir));
  return (await stat(join(dir, 'inventory.json'))).size;
}

const journal = (dir: string): Promise<string> => readFile(join(dir, 'journal.jsonl'), 'utf8');

describe('a close folds the journal only when it is worth it', () => {
  it('leaves the snapshot of a large state as it was when a pass recorded little, and the change is read back', async () => {
    const dir = await tempDir('fold-large-');
    const size = await largeState(dir);
    expect(size).toBeGreaterThan(1024 * 1024);
    expect(await journal(dir)).toBe('');
    const before = await readFile(join(dir, 'inventory.json'), 'utf8');

    const store = await InventoryStore.open(dir);
    await store.patch('Flow/flow-7', { revision: 'r2' });
    await store.remove('Flow/flow-8');
    await store.close();

    expect(await readFile(join(dir, 'inventory.json'), 'utf8')).toBe(before);
    expect((await journal(dir)).split('\n').filter(Boolean)).toHaveLength(2);
    const back = await loadInventory(dir);
    expect(back.objects['Flow/flow-7']?.revision).toBe('r2');
    expect(back.objects['Flow/flow-8']).toBeUndefined();
    expect(Object.keys(back.objects)).toHaveLength(3499);
  });

  it('folds a large state once the journal holds half the snapshot, across passes', async () => {
    const dir = await tempDir('fold-half-');
    const size = await largeState(dir);
    let passes = 0;
    // Each pass rewrites 100 entries (~55 KB of journal): half the snapshot takes several.
    while ((await journal(dir)).length > 0 || passes === 0) {
      const store = await InventoryStore.open(dir);
      for (let i = 0; i < 100; i++) await store.patch(`Flow/flow-${(passes * 100 + i) % 3500}`, { revision: `p${passes}` });
      await store.close();
      passes++;
      const left = (await journal(dir)).length;
      if (left > 0) expect(left * 2).toBeLessThan(size * 1.1);
      expect(passes).toBeLessThan(30);
    }
    expect(passes).toBeGreaterThan(2);
    const back = await loadInventory(dir);
    expect(back.objects[`Flow/flow-${(passes - 1) * 100}`]?.revision).toBe(`p${passes - 1}`);
  });

  it('folds a large state once the journal reaches compactMinBytes, however large the snapshot', async () => {
    const dir = await tempDir('fold-cap-');
    const size = await largeState(dir);
    const store = await InventoryStore.open(dir);
    store.compactMinBytes = 64 * 1024;
    // ~110 KB of journal: far below half the snapshot, above the cap.
    for (let i = 0; i < 200; i++) await store.patch(`Flow/flow-${i}`, { revision: 'capped' });
    await store.close();
    expect(size).toBeGreaterThan(4 * 110 * 1024);
    expect(await journal(dir)).toBe('');
    expect((await loadInventory(dir)).objects['Flow/flow-199']?.revision).toBe('capped');
  });

  it('still folds a small state at every close', async () => {
    const dir = await tempDir('fold-small-');
    const store = await InventoryStore.open(dir);
    await store.put(entry(1));
    await store.close();
    expect(await journal(dir)).toBe('');
    const again = await InventoryStore.open(dir);
    await again.patch('Flow/flow-1', { revision: 'r2' });
    await again.close();
    expect(await journal(dir)).toBe('');
    expect((await loadInventory(dir)).objects['Flow/flow-1']?.revision).toBe('r2');
  });

  it('folds a torn journal of a large state at close, even when the pass recorded nothing', async () => {
    const dir = await tempDir('fold-torn-');
    await largeState(dir);
    await writeFile(join(dir, 'journal.jsonl'), '{"seq":99999,"op":"remove","key":"Flow/flo');
    const store = await InventoryStore.open(dir);
    await store.close();
    expect(await journal(dir)).toBe('');
    expect(Object.keys((await loadInventory(dir)).objects)).toHaveLength(3500);
  });
});

describe('a remote journal near its block limit (Azurite)', () => {
  const azurite = useAzurite();

  it('is folded at close whatever its size, counting the blocks already in the blob when the state was read', async () => {
    const container = BlobServiceClient.fromConnectionString(azurite().connectionString).getContainerClient('fold');
    const open = async (foldBlocks: number): Promise<{ backend: AzureBlobBackend; store: InventoryStore }> => {
      const backend = new AzureBlobBackend(container, 'prod', 'azblob://fold/prod');
      backend.foldBlocks = foldBlocks;
      await backend.lock(() => undefined);
      return { backend, store: await InventoryStore.openOn(backend) };
    };
    const first = await open(40_000);
    await fillLarge(first.store);
    await first.backend.unlock();

    // Two passes of one small change each: two blocks, far below half the snapshot.
    for (const revision of ['a', 'b']) {
      const pass = await open(3);
      await pass.store.patch('Flow/flow-1', { revision });
      await pass.store.close();
      await pass.backend.unlock();
    }
    const read = async (): Promise<Awaited<ReturnType<typeof readBackend>>> => {
      const b = new AzureBlobBackend(container, 'prod', 'azblob://fold/prod');
      return readBackend(b);
    };
    expect((await read()).journalBytes).toBeGreaterThan(0);

    // The third block reaches the limit: this close folds.
    const third = await open(3);
    await third.store.patch('Flow/flow-1', { revision: 'c' });
    await third.store.close();
    await third.backend.unlock();
    const after = await read();
    expect(after.journalBytes).toBe(0);
    expect(after.inventory.objects['Flow/flow-1']?.revision).toBe('c');
    expect(Object.keys(after.inventory.objects)).toHaveLength(3500);
  }, 60_000);

  it('is folded mid-apply when it nears the block limit (regression: an apply of more than 50,000 small appends failed)', async () => {
    const container = BlobServiceClient.fromConnectionString(azurite().connectionString).getContainerClient('fold-mid');
    const backend = new AzureBlobBackend(container, 'prod', 'azblob://fold-mid/prod');
    backend.foldBlocks = 4;
    await backend.lock(() => undefined);
    const store = await InventoryStore.openOn(backend);
    // Each flush is one Append Block; the journal stays tiny, far below max(16 MiB, 2 × snapshot).
    for (let i = 0; i < 10; i++) {
      await store.put(entry(i));
      await store.flush();
    }
    const midway = await readBackend(new AzureBlobBackend(container, 'prod', 'azblob://fold-mid/prod'));
    expect(store.stats.snapshots).toBeGreaterThanOrEqual(2);
    expect(midway.journalBytes).toBeLessThan(4 * 1000);
    expect(Object.keys(midway.inventory.objects)).toHaveLength(10);
    await store.close();
    await backend.unlock();
  }, 60_000);
});
