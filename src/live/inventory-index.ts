/**
 * The inventory's entries by kind, made once per pass's reads: the reads ask for the owned ids of a
 * kind several times (packages, flows, upload tasks, failed packages), and each walk of a large
 * fleet's 20,000 entries cost 10–20 ms after the last answer (docs/performance.md, fleet-cli).
 */
import type { Inventory, InventoryEntry } from '../state/inventory-types.js';
import { lowerId } from './confirm-owned.js';

export class InventoryIndex {
  private readonly byKind = new Map<string, [string, InventoryEntry][]>();

  constructor(inventory: Inventory) {
    for (const [key, e] of Object.entries(inventory.objects)) {
      const list = this.byKind.get(e.kind);
      if (list) list.push([key, e]);
      else this.byKind.set(e.kind, [[key, e]]);
    }
  }

  /** The entries of one kind, with their keys. */
  entries(kind: string): readonly [string, InventoryEntry][] {
    return this.byKind.get(kind) ?? [];
  }

  /** The live ids of the entries of one kind. */
  ids(kind: string): string[] {
    return this.entries(kind).map(([, e]) => e.id);
  }

  /** Flow ids the state owns: its flows', and those its deployments are in. */
  flowIds(): Set<string> {
    const owned = new Set<string>();
    for (const [, e] of this.entries('Flow')) owned.add(lowerId(e.id));
    for (const [, e] of this.entries('Deployment')) if (e.flowId) owned.add(lowerId(e.flowId));
    return owned;
  }

  /** Every owned live id, lower-case. */
  allIds(): Set<string> {
    const ids = new Set<string>();
    for (const list of this.byKind.values()) for (const [, e] of list) ids.add(lowerId(e.id));
    return ids;
  }
}
