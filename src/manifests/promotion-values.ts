/**
 * `spec.promotion` values as people write them (`1h30m`, `95%`) and the numbers the gate uses, with
 * the defaults of docs/promotion.md in one place. The schema already refused malformed text, so
 * parsing here only converts.
 */
import type { PromotionSpec } from './model.js';

export interface PromotionRules {
  soakMs: number;
  minDevices: number;
  /** 0..1 */
  successRate: number;
  /** 0..1 */
  maxFailureRate: number;
  deadlineMs: number;
  onFailure: 'stop' | 'hold';
  toWave: number | null;
}

export const PROMOTION_DEFAULTS = {
  soak: '24h',
  minDevices: 20,
  successRate: '95%',
  maxFailureRate: '10%',
  deadline: '72h',
  onFailure: 'stop',
} as const;

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000 };

/** `3d`, `2h`, `1h30m`, `30m` → milliseconds. */
export function parseDuration(text: string): number {
  const parts = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/.exec(text.trim());
  if (!parts || text.trim() === '') throw new TypeError(`not a duration: "${text}" (write e.g. 30m, 2h, 1h30m, 3d)`);
  const [, d, h, m] = parts;
  return Number(d ?? 0) * UNIT_MS.d! + Number(h ?? 0) * UNIT_MS.h! + Number(m ?? 0) * UNIT_MS.m!;
}

/** `95%` → 0.95. */
export function parseRate(text: string): number {
  const m = /^(\d{1,3}(?:\.\d+)?)%$/.exec(text.trim());
  if (!m) throw new TypeError(`not a percentage: "${text}" (write e.g. 95%)`);
  return Number(m[1]) / 100;
}

/** Milliseconds as the largest whole units, minutes at most: `14h`, `1d2h`, `45m`, `0m`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 60_000));
  const d = Math.floor(total / 1440);
  const h = Math.floor((total % 1440) / 60);
  const m = total % 60;
  const out = `${d ? `${d}d` : ''}${h ? `${h}h` : ''}${m ? `${m}m` : ''}`;
  return out || '0m';
}

export function promotionRules(p: PromotionSpec): PromotionRules {
  return {
    soakMs: parseDuration(p.soak ?? PROMOTION_DEFAULTS.soak),
    minDevices: p.minDevices ?? PROMOTION_DEFAULTS.minDevices,
    successRate: parseRate(p.successRate ?? PROMOTION_DEFAULTS.successRate),
    maxFailureRate: parseRate(p.maxFailureRate ?? PROMOTION_DEFAULTS.maxFailureRate),
    deadlineMs: parseDuration(p.deadline ?? PROMOTION_DEFAULTS.deadline),
    onFailure: p.onFailure ?? PROMOTION_DEFAULTS.onFailure,
    toWave: p.toWave ?? null,
  };
}
