/** A state inventory owning `n` flows (ids made up, never read back by the service): for tests of what the reads do. */
import type { Inventory } from '../../src/state/inventory-types.js';
import { emptyInventory } from '../../src/state/inventory-types.js';

export function inventoryOwningFlows(n: number): Inventory {
  const inv = emptyInventory();
  for (let i = 0; i < n; i++) {
    inv.objects[`Flow/f${i}`] = {
      kind: 'Flow',
      name: `f${i}`,
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      specHash: 'x',
      spec: {},
      revision: null,
      updatedAt: '2026-11-28T00:00:00Z',
    };
  }
  return inv;
}
