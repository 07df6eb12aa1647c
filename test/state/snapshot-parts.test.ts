/**
 * The snapshot is written in parts (regression: encoded as one ~12 MB string and one buffer at the
 * end of an apply, it made the patch-tuesday apply's peak RSS). What must hold: the parts joined are
 * exactly the JSON of the whole state, they are the state of the moment they were asked for, and a
 * compaction in many parts loads back as the same inventory.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InventoryStore, loadInventory } from '../../src/state/inventory-store.js';
import { emptyInventory } from '../../src/state/inventory-types.js';
import type { Inventory, InventoryEntry } from '../../src/state/inventory-types.js';
import { snapshotParts } from '../../src/state/journal.js';
import { emptyHistory } from '../../src/state/history.js';

const entry = (name: string, id: string): InventoryEntry => ({
  kind: 'Flow',
  name,
  id,
  specHash: 'h',
  spec: { name, note: 'quote " backslash \\ newline \n ✓' },
  revision: 'r',
  updatedAt: 't',
});

function inventoryOf(n: number): Inventory {
  const inv = emptyInventory();
  for (let i = 0; i < n; i++) inv.objects[`Flow/f${i} "x"`] = entry(`f${i}`, `id-${i}`);
  inv.intents['Flow/new'] = { key: 'Flow/new', op: 'create-flow', at: 't', knownIds: [], match: { name: 'new' } };
  return inv;
}

const whole = (inv: Inventory, seq: number): string => {
  const history = inv.history ? { history: inv.history } : {};
  return `${JSON.stringify({ version: inv.version, seq, objects: inv.objects, intents: inv.intents, ...history })}\n`;
};

describe('snapshot parts', () => {
  it('joined, are exactly the JSON of the whole state, in one part or many', () => {
    for (const inv of [emptyInventory(), inventoryOf(1), inventoryOf(300)]) {
      expect([...snapshotParts(inv, 7)].join('')).toBe(whole(inv, 7));
      const parts = [...snapshotParts(inv, 7, 200)];
      if (Object.keys(inv.objects).length > 10) expect(parts.length).toBeGreaterThan(10);
      expect(parts.join('')).toBe(whole(inv, 7));
    }
    const withHistory = inventoryOf(3);
    withHistory.history = { ...emptyHistory(), horizon: '2026-11-27T00:00:00Z' };
    expect([...snapshotParts(withHistory, 1, 50)].join('')).toBe(whole(withHistory, 1));
  });

  it('are each small enough to be an ordinary young object, never a large one (regression: 1 MiB parts still grew the heap)', () => {
    const parts = [...snapshotParts(inventoryOf(3000), 1)];
    expect(parts.length).toBeGreaterThan(10);
    // Below 64K characters, a part is under V8's large-object size even as two-byte text.
    for (const part of parts) expect(part.length).toBeLessThan(64 * 1024);
  });

  it('are the state of the moment they were asked for, whatever changes while they are written', () => {
    const inv = inventoryOf(50);
    const before = whole(inv, 3);
    const parts = snapshotParts(inv, 3, 100);
    inv.objects['Flow/f1 "x"'] = entry('f1', 'id-changed');
    delete inv.objects['Flow/f2 "x"'];
    inv.objects['Flow/later'] = entry('later', 'id-later');
    inv.intents['Flow/other'] = { key: 'Flow/other', op: 'create-flow', at: 't', knownIds: [], match: { name: 'other' } };
    expect([...parts].join('')).toBe(before);
  });

  it('a compaction of a large state loads back as the same inventory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-parts-'));
    const store = await InventoryStore.open(dir);
    for (let i = 0; i < 12_000; i++) await store.put(entry(`f${i}`, `id-${i}`));
    await store.close();
    const text = await readFile(join(dir, 'inventory.json'), 'utf8');
    // Larger than one part: it was written in several.
    expect(text.length).toBeGreaterThan(1.5 * 1024 * 1024);
    const back = await loadInventory(dir);
    expect(Object.keys(back.objects)).toHaveLength(12_000);
    expect(back.objects['Flow/f11999']).toEqual(entry('f11999', 'id-11999'));
    expect(text).toBe(whole(back, (JSON.parse(text) as { seq: number }).seq));
  });
});
