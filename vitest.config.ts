import { defineConfig } from 'vitest/config';

/**
 * Test tiers (README, "Working on packsync"), chosen with vitest's `--mode`:
 * - default (`npm test`): everything but the process-level end-to-end tier, within 3 minutes on two cores;
 * - `e2e` (`npm run test:e2e`): the built CLI driven as a process (test/e2e) and the reliability suites at
 *   reduced counts (test/reliability): slow because every case starts processes; CI runs it too;
 * - `fast` (`npm run test:fast`, a watch loop): the in-process unit and integration tests only;
 * - `all`: both tiers at once.
 */
const E2E = ['test/e2e/**/*.test.ts', 'test/reliability/**/*.test.ts'];
const PROCESS_LEVEL = [...E2E, 'test/agent/**/*.test.ts', 'test/deploy/**/*.test.ts', 'test/bench/**/*.test.ts'];

function tier(mode: string): { include: string[]; exclude: string[] } {
  if (mode === 'e2e') return { include: E2E, exclude: [] };
  if (mode === 'all') return { include: ['test/**/*.test.ts'], exclude: [] };
  if (mode === 'fast') return { include: ['test/**/*.test.ts'], exclude: PROCESS_LEVEL };
  return { include: ['test/**/*.test.ts'], exclude: E2E };
}

export default defineConfig(({ mode }) => ({
  test: {
    ...tier(mode),
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only make the HTTP-heavy suites contend with each other.
    maxWorkers: 2,
  },
}));
