/**
 * Per-object heal backoff (docs/reconcile.md): drift is healed at once, but an object healed again and
 * again (someone keeps stopping a deployment in the console) is held for longer each time — 2 s,
 * 4 s, 8 s … capped at 5 min by default — so packsync and a person do not fight at API speed. A
 * held object is only reported; the loop wakes when the earliest hold ends to heal it then.
 */
import type { ObjectPlan } from '../plan/types.js';

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_HEAL_BACKOFF: Backoff = { baseMs: 2000, maxMs: 300_000 };

/** How often an object was healed in a row, and until when (ms) healing it again is held. */
export interface Hold {
  count: number;
  until: number;
}

/** The hold after one more heal in a row: the backoff doubles from `baseMs`, capped at `maxMs`. */
export function nextHold(prev: Hold | undefined, now: number, backoff: Backoff): Hold {
  const count = (prev?.count ?? 0) + 1;
  return { count, until: now + Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(count - 1, 30)) };
}

export class HealBackoff {
  private readonly holds = new Map<string, Hold>();

  constructor(
    private readonly now: () => number,
    private readonly backoff: Backoff = DEFAULT_HEAL_BACKOFF,
  ) {}

  /** Objects whose next heal is held now: the planner reports their drift instead of healing it. */
  held(): string[] {
    const now = this.now();
    return [...this.holds].filter(([, h]) => now < h.until).map(([k]) => k);
  }

  /** Records one pass's plan: objects healed this pass are held for longer; drift-free ones are forgiven in time. */
  record(objects: readonly Pick<ObjectPlan, 'key' | 'drift'>[]): void {
    const now = this.now();
    for (const o of objects) {
      if (!o.drift) {
        // Quiet for a whole backoff cap after its last hold: the fight is over, start from base again.
        const h = this.holds.get(o.key);
        if (h && now - h.until > this.backoff.maxMs) this.holds.delete(o.key);
        continue;
      }
      // Only a heal grows the hold; drift merely reported or held leaves it as it is.
      if (o.drift === 'healed') this.holds.set(o.key, nextHold(this.holds.get(o.key), now, this.backoff));
    }
  }

  /**
   * When the earliest hold still standing ends (ms on the injected clock), or null when none
   * stands. Ended holds are skipped: they are kept only to remember the count, and must not hide a
   * later one.
   */
  nextWakeAt(): number | null {
    const now = this.now();
    let next: number | null = null;
    for (const h of this.holds.values()) if (h.until > now && (next === null || h.until < next)) next = h.until;
    return next;
  }
}
