/**
 * The state repairs behind `packsync state mv|rm`: edits of an in-memory inventory only. They never
 * call the API (docs/architecture.md: rm forgets, never deletes live); the command makes them durable in one
 * atomic write, so a crash leaves the state either wholly before or wholly after the edit.
 */
import type { Intent, Inventory, InventoryEntry } from '../state/inventory-types.js';
import type { Kind } from '../manifests/model.js';
import { OBJECT_KINDS } from '../manifests/model.js';
import { OBJECT_KIND_SPECS } from '../manifests/kinds/index.js';
import { hashValue } from '../plan/hash.js';
import type { StateKey } from './state-keys.js';
import { StateKeyError } from './state-keys.js';
import { isRecord } from '../util/records.js';

/**
 * Fields of a spec kept in the state that name another manifest by its `metadata.name`. The planner
 * hashes these specs as they are (deployment identity, flow spec, upload spec), so an entry that
 * still names the old key after a rename would read as a changed (for a deployment: replaced) object.
 */
const REFERENCES: Record<Kind, Partial<Record<Kind, string>>> = Object.fromEntries(
  OBJECT_KINDS.map((k) => [
    k,
    Object.fromEntries(Object.entries(OBJECT_KIND_SPECS[k].references).map(([field, target]) => [target, field])),
  ]),
) as Record<Kind, Partial<Record<Kind, string>>>;

export interface MoveResult {
  /** `[from, to]` for the entry and each superseded entry that moved with it. */
  moved: [string, string][];
  /** Whether a pending intent moved too. */
  intent: boolean;
  /** Keys whose spec named OLD and now names NEW. */
  references: string[];
  /** Keys whose spec names OLD but was left alone (its hash is not the one this packsync computes). */
  unchangedReferences: string[];
}

/**
 * Renames `from` to `to` (same kind, `to` unused): the entry with its `name`, every superseded
 * entry `from#id` (kept so a revert of NEW reuses them), the pending intent, and the references to
 * OLD in other entries' specs.
 */
export function moveEntry(inv: Inventory, from: StateKey, to: StateKey, now: string): MoveResult {
  if (from.kind !== to.kind)
    throw new StateKeyError(`cannot move ${from.key} to ${to.key}: a state entry keeps its kind (try ${from.kind}/${to.name})`);
  if (from.key === to.key) throw new StateKeyError(`OLD and NEW are the same key (${from.key})`);
  const taken = [to.key, ...supersededKeys(inv, from.key).map(([, id]) => `${to.key}#${id}`)].filter(
    (k) => k in inv.objects || k in inv.intents,
  );
  if (taken.length > 0)
    throw new StateKeyError(
      `cannot move ${from.key} to ${to.key}: ${taken.join(', ')} already exists in the state (forget it first with \`packsync state rm\`, or choose another name)`,
    );

  const entry = inv.objects[from.key];
  if (!entry && !(from.key in inv.intents)) throw new StateKeyError(`OLD "${from.key}" is not in the state`);
  const moved: [string, string][] = [];
  if (entry) {
    inv.objects[to.key] = { ...entry, name: to.name, updatedAt: now };
    delete inv.objects[from.key];
    moved.push([from.key, to.key]);
  }
  for (const [key, id] of supersededKeys(inv, from.key)) {
    const e = inv.objects[key];
    if (!e) continue;
    const next = `${to.key}#${id}`;
    inv.objects[next] = { ...e, name: `${to.name}#${id}` };
    delete inv.objects[key];
    moved.push([key, next]);
  }
  const intent: Intent | undefined = inv.intents[from.key];
  if (intent) {
    inv.intents[to.key] = { ...intent, key: to.key };
    delete inv.intents[from.key];
  }
  return { moved, intent: intent !== undefined, ...rewriteReferences(inv, from, to) };
}

/** Forgets each key (entry and pending intent); returns the entries forgotten. */
export function forgetEntries(inv: Inventory, keys: readonly StateKey[]): { key: string; entry?: InventoryEntry; intent?: Intent }[] {
  return keys.map((k) => {
    const entry = inv.objects[k.key];
    const intent = inv.intents[k.key];
    delete inv.objects[k.key];
    delete inv.intents[k.key];
    return { key: k.key, ...(entry ? { entry } : {}), ...(intent ? { intent } : {}) };
  });
}

/** Superseded entries of a main key, as `[key, liveId]`. */
export function supersededKeys(inv: Inventory, mainKey: string): [string, string][] {
  const prefix = `${mainKey}#`;
  return Object.keys(inv.objects)
    .filter((k) => k.startsWith(prefix))
    .map((k) => [k, k.slice(prefix.length)]);
}

function rewriteReferences(inv: Inventory, from: StateKey, to: StateKey): { references: string[]; unchangedReferences: string[] } {
  const references: string[] = [];
  const unchangedReferences: string[] = [];
  const oldName = from.name;
  for (const [key, e] of Object.entries(inv.objects)) {
    const field = REFERENCES[e.kind][from.kind];
    if (field === undefined || !isRecord(e.spec) || e.spec[field] !== oldName) continue;
    // Only a spec whose stored hash is the plain hash of the spec is rewritten: then the new hash is
    // exactly what the planner computes for the renamed manifest. Anything else is left as it is.
    if (e.specHash !== hashValue(e.spec)) {
      unchangedReferences.push(key);
      continue;
    }
    const spec = { ...e.spec, [field]: to.name };
    inv.objects[key] = { ...e, spec, specHash: hashValue(spec) };
    references.push(key);
  }
  return { references, unchangedReferences };
}
