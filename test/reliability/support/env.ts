/**
 * Counts and reporting shared by the reliability suites. `npm run test:reliability` sets
 * PACKSYNC_FULL=1 (vitest.reliability.config.ts) and every suite runs at its full count; the
 * default `vitest run` uses the reduced counts so the whole suite stays fast on two cores.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FULL = process.env.PACKSYNC_FULL === '1';

/** `full` under PACKSYNC_FULL, else `reduced`; an explicit `envName` variable wins over both. */
export function count(full: number, reduced: number, envName?: string): number {
  const raw = envName ? process.env[envName] : undefined;
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${envName} must be a whole number >= 1 (got "${raw}")`);
    return n;
  }
  return FULL ? full : reduced;
}

/** Where each suite leaves its figures (one JSON file per suite) for docs/reliability.md. */
export const REPORT_DIR = process.env.PACKSYNC_RELIABILITY_REPORT_DIR ?? join(tmpdir(), 'packsync-reliability');

/** Prints the figures of a suite and writes them to `REPORT_DIR/<suite>.json`. */
export async function report(suite: string, figures: Record<string, unknown>): Promise<void> {
  const body = { suite, mode: FULL ? 'full' : 'reduced', at: new Date().toISOString(), ...figures };
  await mkdir(REPORT_DIR, { recursive: true });
  await writeFile(join(REPORT_DIR, `${suite}.json`), `${JSON.stringify(body, null, 2)}\n`);
  console.log(`[reliability] ${suite}: ${JSON.stringify(figures)}`);
}

/** Least-squares slope of y over x (units of y per unit of x). */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i]!;
    sy += ys[i]!;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
