/**
 * The state-only writes a plan makes besides an object's own (no API call): a rename's move of
 * the entry to its new key, the entry a replacement supersedes, a revert's restore of a superseded
 * entry, and a record of what is already true live. The context stamps each record with the
 * manifest file being planned.
 */
import type { InventoryEntry } from '../state/inventory-types.js';
import type { PlanContext } from './context.js';
import { OP } from './ops.js';

/** A record of `entry` as applied now (an adopt, a refresh of recorded fields). */
export function recordAction(ctx: PlanContext, key: string, dependsOn: string[], description: string, entry: InventoryEntry): string {
  return ctx.action(key, { op: OP.record, dependsOn, description, entry: { ...entry, updatedAt: ctx.timestamp() }, resolvesIntent: false });
}

/**
 * The state writes of a move: the entry under its new name, the old key forgotten. No API call.
 * Returns the entry as the new key now owns it, and the two action ids.
 */
export function moveActions(
  ctx: PlanContext,
  newKey: string,
  from: string,
  entry: InventoryEntry,
): { entry: InventoryEntry; actions: string[] } {
  const name = newKey.slice(newKey.indexOf('/') + 1);
  const moved: InventoryEntry = { ...entry, name, updatedAt: ctx.timestamp() };
  const rec = ctx.action(newKey, {
    op: OP.record,
    dependsOn: [],
    description: `move ${from} to ${newKey} in the state (no API call)`,
    entry: moved,
    resolvesIntent: false,
  });
  const forget = ctx.action(from, { op: OP.forget, dependsOn: [rec], description: `forget ${from} (moved to ${newKey})` });
  const actions = [rec, forget];
  // The old key's superseded entries move with it, as `packsync state mv` moves them: left under a
  // key that is gone, a revert of the new key would create again what they keep (docs/reconcile.md).
  for (const [oldKept, e] of ctx.superseded(from)) {
    const keptKey = `${newKey}#${e.id}`;
    if (ctx.entry(keptKey)) continue;
    const carried = ctx.action(keptKey, {
      op: OP.record,
      dependsOn: [rec],
      description: `move ${oldKept} to ${keptKey} in the state (no API call)`,
      entry: { ...e, name: `${name}#${e.id}` },
      resolvesIntent: false,
    });
    const dropped = ctx.action(oldKept, { op: OP.forget, dependsOn: [carried], description: `forget ${oldKept} (moved to ${keptKey})` });
    actions.push(carried, dropped);
  }
  return { entry: moved, actions };
}

/**
 * Keeps the entry a replacement supersedes (docs/reconcile.md): it stays in the state while it exists live,
 * so a revert reuses it and --prune can delete it. Runs before the create: a crash in between
 * leaves a duplicate record of the old id (ignored), never a lost one.
 */
export function supersedeAction(ctx: PlanContext, key: string, entry: InventoryEntry, dependsOn: string[] = []): string {
  const name = `${entry.name.split('#')[0] ?? entry.name}#${entry.id}`;
  const kept: InventoryEntry = { ...entry, name, superseded: { at: ctx.timestamp() } };
  return ctx.action(`${entry.kind}/${name}`, {
    op: OP.record,
    dependsOn,
    description: `keep ${key} (${entry.id}) in the state as superseded`,
    entry: kept,
    resolvesIntent: false,
  });
}

/** Restores a superseded entry as the main entry of `key` (a revert): state writes only. */
export function restoreActions(
  ctx: PlanContext,
  key: string,
  supersededKey: string,
  entry: InventoryEntry,
  dependsOn: string[] = [],
): string[] {
  const name = key.slice(key.indexOf('/') + 1);
  const { superseded: _s, ...rest } = entry;
  const restored: InventoryEntry = { ...rest, name, updatedAt: ctx.timestamp() };
  const rec = ctx.action(key, {
    op: OP.record,
    dependsOn,
    description: `reuse ${entry.id} kept from an earlier version`,
    entry: restored,
    resolvesIntent: false,
  });
  ctx.reused.add(supersededKey);
  const forget = ctx.action(supersededKey, {
    op: OP.forget,
    dependsOn: [rec],
    description: `forget ${supersededKey} (reused as ${key})`,
  });
  return [rec, forget];
}

/**
 * Folds a detected rename into the object planned for `key`: the state writes go first, the
 * object says where it moved from, and an otherwise unchanged object shows as a move.
 */
export function markMoved(ctx: PlanContext, key: string, from: string, actions: string[]): void {
  for (let i = ctx.objects.length - 1; i >= 0; i--) {
    const o = ctx.objects[i];
    if (o?.key !== key) continue;
    o.movedFrom = from;
    // The object's own state writes (a record of applied state, a superseded entry) come after
    // the move's record of the same key, never before it: runGraph would otherwise race them.
    const record = actions[0];
    if (record !== undefined) {
      const own = new Set(o.actions);
      for (const a of ctx.actions) if (own.has(a.id) && !a.dependsOn.includes(record)) a.dependsOn.push(record);
    }
    o.actions = [...actions, ...o.actions];
    o.reasons = [`${from} has moved to ${key}`, ...o.reasons];
    if (o.change === 'none') o.change = 'move';
    return;
  }
}
