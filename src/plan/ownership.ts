/**
 * The ownership decision every kind shares (design §4), written once: a live object that matches a
 * manifest but is not owned is adopted when a pending intent shows packsync created it (a crash
 * between the create and its record), adopted on `--adopt`, and otherwise a conflict. Which of
 * several matches wins is the kind's own rule (`pick`): the newest package or upload task, the
 * oldest flow.
 */
import type { PlanContext } from './context.js';

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
