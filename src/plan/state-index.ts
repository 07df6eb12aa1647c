/**
 * The plan's indexes over the state (who owns which live id, superseded entries, intents): built
 * from the inventory and the desired set alone, so a pass builds them while its reads are in
 * flight (`preparePlan` in planner.ts, in slices of the event loop) instead of after the last answer
 * (docs/architecture.md, "The engine"). `PlanContext` asks them; nothing here changes them after.
 */
import type { Intent, Inventory, InventoryEntry } from '../state/inventory-types.js';
import { Turns } from '../util/turns.js';

export class StateIndex {
  // Maps, not the inventory's plain objects: a property lookup with 100k distinct fresh key strings
  // internalises every one of them, and that dominated planning time at scale.
  readonly entries = new Map<string, InventoryEntry>();
  readonly intents: Map<string, Intent>;
  /** Live id → the main (not superseded) state key that owns it (a desired one first, see `add`). */
  readonly owners = new Map<string, string>();
  /**
   * Live id → every state key recording it, main and superseded, when there is more than one: one
   * live object belongs to one key (docs/reconcile.md), so these are what a new key must not take over and
   * what prune must not delete from under another key. Rare, so only the shared ids are kept.
   */
  readonly shared = new Map<string, string[]>();
  /** Live id → a superseded key recording it. */
  readonly kept = new Map<string, string>();
  /** Main key → its superseded entries (`Kind/name#id`), newest first. */
  readonly supersededOf = new Map<string, [string, InventoryEntry][]>();

  private constructor(
    /** The inventory indexed: a plan of another inventory (or desired set) builds its own. */
    readonly inventory: Inventory,
    readonly isDesired: (key: string) => boolean,
  ) {
    this.intents = mapOf(inventory.intents);
  }

  /** The state key recording live id `id`: the main key that owns it, else a superseded one. */
  keyOf(id: string): string | undefined {
    return this.owners.get(id) ?? this.kept.get(id);
  }

  /** Built at once (a plan given no index). */
  static build(inventory: Inventory, isDesired: (key: string) => boolean): StateIndex {
    const index = new StateIndex(inventory, isDesired);
    // Keys, not Object.entries or the Map's own iterator: no [key, entry] pair per entry.
    for (const key of Object.keys(inventory.objects)) index.add(key);
    return index.finish();
  }

  /** Built giving way to the event loop every millisecond, so answers in flight are handled meanwhile. */
  static async inTurns(inventory: Inventory, isDesired: (key: string) => boolean): Promise<StateIndex> {
    const index = new StateIndex(inventory, isDesired);
    const turns = new Turns();
    for (const key of Object.keys(inventory.objects)) {
      index.add(key);
      if (turns.due()) await turns.next();
    }
    return index.finish();
  }

  private add(key: string): void {
    const e = this.inventory.objects[key]!;
    this.entries.set(key, e);
    const hash = key.indexOf('#');
    const first = this.owners.get(e.id) ?? this.kept.get(e.id);
    if (first !== undefined) this.shared.set(e.id, [...(this.shared.get(e.id) ?? [first]), key]);
    if (hash < 0) {
      // Two main keys on one id (a state written before packsync refused that): the one git
      // still describes owns it, so a rename is never inferred from the other.
      const owner = this.owners.get(e.id);
      if (owner === undefined || (!this.isDesired(owner) && this.isDesired(key))) this.owners.set(e.id, key);
      return;
    }
    if (!this.kept.has(e.id)) this.kept.set(e.id, key);
    const main = key.slice(0, hash);
    const list = this.supersededOf.get(main) ?? [];
    list.push([key, e]);
    this.supersededOf.set(main, list);
  }

  private finish(): this {
    for (const keys of this.shared.values()) keys.sort();
    return this;
  }
}

/** A record's entries as a Map, without the `[key, value]` pair arrays of `Object.entries` (20,000 of them at fleet scale). */
function mapOf<V>(record: Record<string, V>): Map<string, V> {
  const map = new Map<string, V>();
  for (const key of Object.keys(record)) map.set(key, record[key]!);
  return map;
}
