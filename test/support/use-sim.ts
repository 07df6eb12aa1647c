/** The simulator hooks of a test file: one simulator and state directory per test (vitest only; bench/ imports sim.ts). */
import { afterEach, beforeEach } from 'vitest';
import { simEnv } from './sim.js';
import type { SimEnv, SimStartOptions } from './sim.js';

/**
 * A fresh simulator and state directory for every test of the file that calls it (registers the
 * hooks): `set` receives each, and the simulator is closed after the test.
 */
export function useSim(set: (s: SimEnv) => void, opts: SimStartOptions = {}): void {
  let current: SimEnv | undefined;
  beforeEach(async () => {
    current = await simEnv(opts);
    set(current);
  });
  afterEach(async () => {
    await current?.sim.close();
    current = undefined;
  });
}
