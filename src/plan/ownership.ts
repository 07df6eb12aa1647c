/**
 * The ownership decision every kind shares (design §4), written once: a live object that matches a
 * manifest but is not owned is adopted when a pending intent shows packsync created it (a crash
 * between the create and its record), adopted on `--adopt`, and otherwise a conflict. Which of
 * several matches wins is the kind's own rule (`pick`): the newest package or upload task, the
 * oldest flow.
 */
import type { Manifest } from '../manifests/model.js';
import type { InventoryEntry } from '../state/inventory-types.js';
import type { PlanContext } from './context.js';
import { OP } from './ops.js';
import type { RecordSpec } from './types.js';

export type Unowned<T> =
  /** Created by an interrupted run of packsync: adopt it, resolving the intent. */
  | { kind: 'intent'; live: T }
  /** Taken over on --adopt. */
  | { kind: 'adopt'; live: T }
  /** Exists live, not owned, no --adopt: the plan fails (ownership honesty). */
  | { kind: 'conflict'; ids: string[] }
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
  if (intent) {
    const fresh = pick(candidates.filter((c) => !intent.knownIds.includes(c.id)));
    if (fresh) return { kind: 'intent', live: fresh };
  }
  if (owned || candidates.length === 0) return { kind: 'none' };
  const adoptable = ctx.options.adopt ? pick(candidates) : undefined;
  if (adoptable) return { kind: 'adopt', live: adoptable };
  return { kind: 'conflict', ids: candidates.map((c) => c.id) };
}

/**
 * The record that takes a live object over, said the same way for every kind: `what` names it in
 * the description, `extra` holds the kind's own fields (a package's phase and content digest).
 */
export function adoptRecord(
  ctx: PlanContext,
  key: string,
  m: Manifest,
  liveId: string,
  record: RecordSpec,
  resolvesIntent: boolean,
  what: string,
  extra: Partial<InventoryEntry> = {},
): string {
  return ctx.action(key, {
    op: OP.record,
    dependsOn: [],
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
  return resolvesIntent ? 'resolved a create interrupted by a crash' : `adopting an existing live ${noun} (--adopt)`;
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
