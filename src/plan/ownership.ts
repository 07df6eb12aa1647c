/**
 * The ownership decision every kind shares (docs/reconcile.md), written once: a live object that matches a
 * manifest but is not owned is adopted when a pending intent shows packsync created it (a crash
 * between the create and its record), adopted on `--adopt`, and otherwise a conflict. Which of
 * several matches wins is the kind's own rule (`pick`): the newest package or upload task, the
 * oldest flow. A match another state key already records is none of these: one live object
 * belongs to one key, so it is an error naming that key, never adopted.
 */
import type { Manifest } from '../manifests/model.js';
import type { Intent, InventoryEntry } from '../state/inventory-types.js';
import type { LiveFlow } from '../live/types.js';
import type { PlanContext, RefState } from './context.js';
import { blockedRef } from './not-planned.js';
import { OP } from './ops.js';
import type { RecordSpec } from './types.js';

export type Unowned<T> =
  /** Created by an interrupted run of packsync: adopt it, resolving the intent. */
  | { kind: 'intent'; live: T }
  /** Taken over on --adopt. */
  | { kind: 'adopt'; live: T }
  /** Exists live, not owned, no --adopt: the plan fails (ownership honesty). */
  | { kind: 'conflict'; ids: string[] }
  /** Every match is recorded in the state under another key (`holder`): an error, with or without --adopt. */
  | { kind: 'owned'; id: string; holder: string }
  /** Nothing to decide: owned already, or nothing matches. */
  | { kind: 'none' };

export function decideUnowned<T extends { id: string }>(
  ctx: PlanContext,
  key: string,
  candidates: readonly T[],
  pick: (xs: readonly T[]) => T | undefined,
  owned: boolean,
): Unowned<T> {
  const intent = ctx.intent(key);
  // The common case (owned, no pending intent) decides nothing: no per-candidate lookups at scale.
  if (!intent && (owned || candidates.length === 0)) return { kind: 'none' };
  const free = candidates.filter((c) => otherHolder(ctx, key, c.id) === undefined);
  if (intent) {
    const fresh = pick(free.filter((c) => !intent.knownIds.includes(c.id)));
    if (fresh) return { kind: 'intent', live: fresh };
  }
  if (owned || candidates.length === 0) return { kind: 'none' };
  if (free.length === 0) {
    const held = pick(candidates) ?? candidates[0];
    const holder = held ? otherHolder(ctx, key, held.id) : undefined;
    if (held && holder !== undefined) return { kind: 'owned', id: held.id, holder };
  }
  const adoptable = ctx.options.adopt ? pick(free) : undefined;
  if (adoptable) return { kind: 'adopt', live: adoptable };
  return { kind: 'conflict', ids: free.map((c) => c.id) };
}

/**
 * The state key other than `key` (and its own superseded copies) that records live id `id`: a key
 * git still describes first, then any main key, then a superseded copy kept for a revert.
 */
export function otherHolder(ctx: PlanContext, key: string, id: string): string | undefined {
  // A key moving to `key` this pass, and its superseded entries (they move with it), are `key`'s own.
  const others = ctx.holdersOf(id).filter((k) => k !== key && !k.startsWith(`${key}#`) && ctx.moves.get(k.split('#')[0] ?? k) !== key);
  return others.find((k) => !k.includes('#') && ctx.isDesired(k)) ?? others.find((k) => !k.includes('#')) ?? others[0];
}

/**
 * Why `key` may not take over `what` (a live object `holder` records), with the way out: the
 * holder's manifest still in git, a holder outside the applied path, a holder that moves to another
 * key in this plan, or a superseded copy kept so a revert of its own key reuses it.
 */
export function ownedElsewhereMessage(ctx: PlanContext, key: string, holder: string, what: string): string {
  const one = 'one live object belongs to one key';
  const hash = holder.indexOf('#');
  if (hash >= 0) {
    const main = holder.slice(0, hash);
    // Kept by a key that left git but is still in the state (a rename the plan did not detect): moving
    // that key here carries its kept entries, so the revert reuses them.
    if (!ctx.isDesired(main) && ctx.entry(main) !== undefined && ctx.entry(key) === undefined) {
      return `${what} is kept in packsync's state by ${holder} (an earlier version of ${main}, kept so a revert reuses it), and ${main} is no longer in git, so ${key} cannot take it over: ${one}; if ${key} is ${main} renamed, run \`packsync state mv ${main} ${key}\` (it carries the kept entries, so this revert reuses them), otherwise forget the kept entry with \`packsync state rm ${holder}\``;
    }
    return `${what} is kept in packsync's state by ${holder} (an earlier version of ${holder.slice(0, hash)}, kept so a revert reuses it), so ${key} cannot take it over: ${one}; forget the kept entry with \`packsync state rm ${holder}\`, then apply with --adopt`;
  }
  if (ctx.isDesired(holder)) {
    return `${what} is already owned by ${holder}, which is still in git, so ${key} cannot create or adopt it: ${one}; remove one of the two manifests (removing ${holder}'s makes this a rename, moved in the state with no API call)`;
  }
  const to = ctx.moves.get(holder);
  if (to !== undefined) return `${what} is owned by ${holder}, which moves to ${to} in this plan, so ${key} cannot take it over: ${one}`;
  const e = ctx.entry(holder);
  const outside = e?.file !== undefined && !ctx.inScope(e) ? ` (recorded from ${e.file}, outside the applied path)` : '';
  return `${what} is owned by ${holder}${outside}, so ${key} cannot create or adopt it: ${one}; if ${holder}'s manifest is gone, apply a path that holds both files (the state then moves it) or run \`packsync state mv ${holder} ${key}\`, otherwise remove one of the two manifests`;
}

/** The object of a manifest whose live match another key owns: an error that blocks its dependents. */
export function planOwnedElsewhere(
  ctx: PlanContext,
  m: Manifest,
  key: string,
  owned: { holder: string; what: string },
  refs?: Map<string, RefState>,
): void {
  const { holder, what } = owned;
  const message = ownedElsewhereMessage(ctx, key, holder, what);
  ctx.object(m.kind, m.metadata.name, 'error', { source: m.source, error: { code: 'OWNED_BY_ANOTHER_KEY', message } }, key);
  refs?.set(m.metadata.name, blockedRef(`${key} has an error`));
}

/**
 * The record that takes a live object over, said the same way for every kind: `what` names it in
 * the description, `extra` holds the kind's own fields (a package's phase and content digest).
 */
export function adoptRecord(
  ctx: PlanContext,
  key: string,
  m: Manifest,
  o: {
    liveId: string;
    record: RecordSpec;
    resolvesIntent: boolean;
    what: string;
    extra?: Partial<InventoryEntry>;
    dependsOn?: string[];
  },
): string {
  const { liveId, record, resolvesIntent, what, extra = {}, dependsOn = [] } = o;
  return ctx.action(key, {
    op: OP.record,
    dependsOn,
    description: resolvesIntent ? `adopt ${what} created by an interrupted run` : `adopt existing ${what}`,
    entry: {
      kind: m.kind,
      name: m.metadata.name,
      id: liveId,
      specHash: record.specHash,
      spec: record.spec,
      revision: null,
      ...(record.annotations ? { annotations: record.annotations } : {}),
      ...extra,
      updatedAt: ctx.timestamp(),
    },
    resolvesIntent,
  });
}

/** The adopted object's reason line. */
export function adoptReason(resolvesIntent: boolean, noun: string): string {
  return resolvesIntent ? 'resolved a create of an interrupted run' : `adopting an existing live ${noun} (--adopt)`;
}

const byCreated = <T extends { created: string }>(a: T, b: T): number => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0);

/** The most recently created of `xs` (packages and upload tasks: the latest create is ours). */
export function newest<T extends { created: string }>(xs: readonly T[]): T | undefined {
  // Sorted descending, first wins: among equal timestamps the earliest listed (as it always was).
  return [...xs].sort((a, b) => byCreated(b, a))[0];
}

/** The first created of `xs` (flows: the one that has been there longest). */
export function oldest<T extends { created: string }>(xs: readonly T[]): T | undefined {
  return [...xs].sort(byCreated)[0];
}

/**
 * Keys git describes that share their live id with another key git describes: a state written
 * before packsync refused that (an `--adopt` of an object another key owned). Nothing is planned
 * for them: which one should own it is a person's call, and prune must never settle it by deleting.
 */
export function sharedDesiredKeys(ctx: PlanContext): Map<string, { id: string; others: string[] }> {
  const out = new Map<string, { id: string; others: string[] }>();
  for (const [id, keys] of ctx.sharedIds()) {
    const desired = keys.filter((k) => !k.includes('#') && ctx.isDesired(k));
    if (desired.length < 2) continue;
    for (const k of desired) out.set(k, { id, others: desired.filter((o) => o !== k) });
  }
  return out;
}

/** The object of a key that shares its live id with other desired keys: an error naming them and the fix. */
export function planSharedId(
  ctx: PlanContext,
  m: Manifest,
  key: string,
  sharing: { id: string; others: string[] },
  refs?: Map<string, RefState>,
): void {
  const { id, others } = sharing;
  const all = [key, ...others].sort();
  // The key recorded last is most likely the one that took the object over by mistake.
  const last = [...all].sort((a, b) => ((ctx.entry(a)?.updatedAt ?? '') < (ctx.entry(b)?.updatedAt ?? '') ? -1 : 1)).at(-1) ?? key;
  const message = `the state records live ${m.kind.toLowerCase()} ${id} under ${all.join(' and ')}, and git describes each of them: one live object belongs to one key, so nothing is planned for them; forget the one that should not own it with \`packsync state rm ${last}\` (it forgets, never deletes; ${last} was recorded last)`;
  ctx.object(m.kind, m.metadata.name, 'error', { source: m.source, error: { code: 'STATE_SHARED_ID', message } }, key);
  refs?.set(m.metadata.name, blockedRef(`${key} has an error`));
}

/** The second of two manifests that resolve to one live identity: an error naming the first; the plan stops. */
export function planSameIdentity(
  ctx: PlanContext,
  m: Manifest,
  key: string,
  twin: { first: string; what: string },
  refs?: Map<string, RefState>,
): void {
  const message = `${key} and ${twin.first} both describe ${twin.what}: one live object belongs to one manifest, so applying both would make it twice; remove one of them`;
  ctx.object(m.kind, m.metadata.name, 'error', { source: m.source, error: { code: 'SAME_LIVE_IDENTITY', message } }, key);
  refs?.set(m.metadata.name, blockedRef(`${key} has an error`));
}

/** Plan-wide lines for ownership errors: like conflicts, they stop the whole plan with zero writes. */
export function ownershipErrors(objects: readonly { error?: { code: string } }[]): string[] {
  let owned = 0;
  let shared = 0;
  let twins = 0;
  for (const o of objects) {
    if (o.error?.code === 'OWNED_BY_ANOTHER_KEY') owned++;
    else if (o.error?.code === 'STATE_SHARED_ID') shared++;
    else if (o.error?.code === 'SAME_LIVE_IDENTITY') twins++;
  }
  const lines: string[] = [];
  if (owned > 0)
    lines.push(
      `${owned} object(s) of this repository match live objects another key in packsync's state owns; nothing was changed: one live object belongs to one key`,
    );
  if (shared > 0)
    lines.push(
      `${shared} key(s) in packsync's state share a live object with another key git describes; nothing was changed: forget one of each with \`packsync state rm KEY\``,
    );
  if (twins > 0)
    lines.push(
      `${twins} manifest(s) of this repository describe the same live object as another manifest; nothing was changed: remove one of each pair`,
    );
  return lines;
}

/**
 * The live flows a pending create-flow intent made: of the name it created, not there before the
 * create (`knownIds`), recorded by no key. Empty for any other intent.
 */
export function flowsMadeBy(ctx: PlanContext, intent: Intent | undefined): LiveFlow[] {
  const name = intent?.op === OP.createFlow ? intent.match['name'] : undefined;
  if (name === undefined) return [];
  return (ctx.flowsByName.get(name) ?? []).filter((f) => !intent!.knownIds.includes(f.id) && ctx.holdersOf(f.id).length === 0);
}
