/** What one plan action needs to run (docs/architecture.md, "apply"): its own module so the write helpers and the action table share it without importing each other. */
import type { PacksyncApi } from '../api/operations.js';
import type { InventoryStore } from '../state/inventory-store.js';
import type { WaitOptions } from './wait.js';
import type { ApplyEvent } from './events.js';

export interface ActionDeps {
  api: PacksyncApi;
  store: InventoryStore;
  revision: string | null;
  now: () => Date;
  wait: WaitOptions;
  signal?: AbortSignal;
  emit: (e: ApplyEvent) => void;
  /**
   * Called right before every API write (creates, actions, deletes, each content chunk and finalize,
   * each attempt): counts it, and throws when the state can no longer record what it does.
   */
  countWrite: () => void;
}
