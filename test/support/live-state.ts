/**
 * A live state of owned flows built by hand, as a pass would hold it after its reads, and a state
 * that owns them: for the history's tests, where the flows' details are what matters and thousands of rollouts through the
 * CLI would take minutes. Lists a pass would not read are empty and marked unread.
 */
import type { LiveState } from '../../src/live/types.js';
import { emptyLiveState } from '../../src/live/types.js';
import { InventoryStore } from '../../src/state/inventory-store.js';
import { tempDir } from './repo.js';

export interface HandFlow {
  id: string;
  name: string;
  details: { id: string; name: string; waves: unknown[]; deployments: unknown[] };
}

export function liveStateOf(flows: readonly HandFlow[], serviceTime: string): LiveState {
  return {
    ...emptyLiveState(),
    flows,
    deployments: flows.flatMap((f) => f.details.deployments),
    read: { apps: false, templates: false, tenants: false, packages: true, flows: true },
    serviceTime,
  } as unknown as LiveState;
}

/** The id of the `i`th hand-made object of `kind` (one letter: d, f, p, t, w), a valid GUID. */
export function handId(kind: string, i: number): string {
  return `00000000-0000-4000-8000-${kind}${String(i).padStart(11, '0')}`;
}

/** Rollouts started an hour apart from 2026-10-01: the lower `i`, the older. */
export function hourlyStart(i: number): string {
  return new Date(Date.UTC(2026, 9, 1) + i * 3_600_000).toISOString();
}

/** A state directory whose state owns `count` flows, `flow-0`…, their ids `handId('f', i)`. */
export async function storeOwningFlows(count: number, prefix: string): Promise<{ dir: string; store: InventoryStore }> {
  const dir = await tempDir(prefix);
  const store = await InventoryStore.open(dir);
  for (let i = 0; i < count; i++)
    await store.put({
      kind: 'Flow',
      name: `flow-${i}`,
      id: handId('f', i),
      specHash: 'h',
      spec: {},
      revision: 'r1',
      updatedAt: '2026-10-01T00:00:00.000Z',
    });
  return { dir, store };
}
