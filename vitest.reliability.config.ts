import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the reliability suites of test/reliability at their full counts
 * (PACKSYNC_FULL=1: the large fleet under faults, 50+ crash points, 500 soak passes). The default
 * `vitest run` runs the same files at reduced counts. `--expose-gc` lets the soak test force a
 * collection before each heap sample, so the slope it reports is of live memory, not garbage.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 40 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One file at a time: the timings reported (extra time under faults, soak memory) are not
    // distorted by another suite competing for the two cores.
    maxWorkers: 1,
    execArgv: ['--expose-gc'],
    env: { PACKSYNC_FULL: '1' },
  },
});
