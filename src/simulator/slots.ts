/**
 * One slot per API key: the isolated account it sees, the journal of its calls, and its share of
 * the client-visible rate limit. Accounts are stored under a digest of the key, so a saved state
 * never holds a key.
 */
import { Account } from './account.js';
import type { JournalEntry } from './admin.js';
import type { Fixtures } from './fixtures.js';
import { keyDigest } from './persistence.js';
import type { PersistedState } from './persistence.js';

export interface AccountSlot {
  account: Account;
  journal: JournalEntry[];
  /** Token bucket of the per-account rate limit: tokens left, and when they were last topped up. */
  tokens: number;
  refilledAt: number;
}

/** A slot per distinct key (default `sim-key`), each account restored from `persisted` when it was saved. */
export function createSlots(
  apiKeys: readonly string[] | undefined,
  fixtures: Fixtures,
  persisted: PersistedState | null,
  rateLimit: number | undefined,
  o: { nowMs?: number; releaseEveryMs?: number | undefined } = {},
): Map<string, AccountSlot> {
  const nowMs = o.nowMs ?? Date.now();
  const slots = new Map<string, AccountSlot>();
  for (const key of apiKeys?.length ? apiKeys : ['sim-key']) {
    if (slots.has(key)) continue;
    const account = new Account(keyDigest(key), fixtures);
    const saved = persisted?.accounts[keyDigest(key)];
    if (saved) account.load(saved);
    if (o.releaseEveryMs !== undefined) account.releases.everyMs = o.releaseEveryMs;
    slots.set(key, { account, journal: [], tokens: rateLimit ?? 0, refilledAt: nowMs });
  }
  return slots;
}

/** `POST /_sim/reset`: a fresh account from the fixtures and an empty journal. */
export function resetSlot(slot: AccountSlot, fixtures: Fixtures, releaseEveryMs?: number): void {
  slot.account = new Account(slot.account.name, fixtures);
  if (releaseEveryMs !== undefined) slot.account.releases.everyMs = releaseEveryMs;
  slot.journal.length = 0;
  // Moves the version the save loop compares (persistence.ts), so the reset is written.
  slot.account.touch();
}

/**
 * Token bucket per account, `limit` per second with a burst of the same size. Null when the
 * request may pass (a token is taken), else the whole seconds to put in `Retry-After`.
 */
export function rateLimited(slot: AccountSlot, limit: number | undefined, nowMs: number = Date.now()): number | null {
  if (!limit) return null;
  slot.tokens = Math.min(limit, slot.tokens + ((nowMs - slot.refilledAt) / 1000) * limit);
  slot.refilledAt = nowMs;
  if (slot.tokens >= 1) {
    slot.tokens -= 1;
    return null;
  }
  return Math.max(1, Math.ceil((1 - slot.tokens) / limit));
}
