import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InventoryStore, loadInventory } from '../../src/apply/inventory-store.js';
import { until } from '../support/poll.js';
import { tempDir } from '../support/temp-dir.js';

const entry = (name: string, id: string) => ({ kind: 'Flow' as const, name, id, specHash: 'h', spec: {}, revision: 'r', updatedAt: 't' });

describe('inventory store', () => {
  it('makes an intent durable at once, other changes within lazyMs or at flush, and reads back what it wrote', async () => {
    const dir = await tempDir('inv-');
    const store = await InventoryStore.open(dir);
    store.lazyMs = 60_000; // so only flush or the next intent can write the lazy changes here
    await store.setIntent({ key: 'Flow/a', op: 'create-flow', at: 't', knownIds: [], match: { name: 'a' } });
    expect((await loadInventory(dir)).intents['Flow/a']).toBeDefined();
    await store.put(entry('a', 'id-a'));
    // Not yet on disk: a crash now leaves the intent, which the next run resolves live.
    expect((await loadInventory(dir)).objects['Flow/a']).toBeUndefined();
    await store.setIntent({ key: 'Flow/b', op: 'create-flow', at: 't', knownIds: [], match: { name: 'b' } });
    // The next intent's write carries every earlier change.
    const back = await loadInventory(dir);
    expect(back.objects['Flow/a']?.id).toBe('id-a');
    expect(back.intents['Flow/a']).toBeUndefined();
    await store.remove('Flow/a');
    await store.flush();
    expect((await loadInventory(dir)).objects).toEqual({});
  });

  it('writes a lazy change by itself within lazyMs', async () => {
    const dir = await tempDir('inv-');
    const store = await InventoryStore.open(dir);
    store.lazyMs = 5;
    await store.put(entry('a', 'id-a'));
    expect((await until('the lazy write', async () => (await loadInventory(dir)).objects['Flow/a'], 1_000, { intervalMs: 10 })).id).toBe('id-a');
  });

  it('serialises concurrent saves so the file always holds the newest state and no temp file is left', async () => {
    const dir = await tempDir('inv-');
    const store = await InventoryStore.open(dir);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.put(entry(`f${i}`, `id-${i}`))));
    await store.flush();
    const back = await loadInventory(dir);
    expect(Object.keys(back.objects)).toHaveLength(50);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('refuses a corrupt inventory with a clear message instead of starting over', async () => {
    const dir = await tempDir('inv-');
    await writeFile(join(dir, 'inventory.json'), '{"version": 1, "objects": {');
    await expect(loadInventory(dir)).rejects.toMatchObject({ code: 'INVENTORY_UNREADABLE', message: expect.stringMatching(/inventory\.json is not valid JSON/) });
    await writeFile(join(dir, 'inventory.json'), '{"version": 7, "objects": {}}');
    await expect(loadInventory(dir)).rejects.toThrow(/unknown format \(version 7/);
    expect(await readFile(join(dir, 'inventory.json'), 'utf8')).toContain('"version": 7');
  });
});
