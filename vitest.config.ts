import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Test tiers (README, "Working on packsync"), chosen with vitest's `--mode`:
 * - default (`npm test`): every in-process test (real simulator over HTTP, real git), within 3 minutes
 *   on two cores;
 * - `e2e` (`npm run test:e2e`): every test that drives the built CLI or agent as a process: test/e2e,
 *   test/reliability (at reduced counts), and any other file that starts one through the process helpers
 *   of test/support; CI runs it too;
 * - `fast` (`npm run test:fast`, a watch loop for development): the default tier;
 * - `all`: both tiers at once.
 * Which tier a file is in follows from what it imports, so a new test lands in the right one by itself.
 */
const PROCESS_HELPERS = /support\/(spawn-cli|agent-process|notified-agent)\.js'|\bCLI_BIN\b/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

function endToEnd(): string[] {
  return testFiles('test').filter((f) => /^test\/(e2e|reliability)\//.test(f) || PROCESS_HELPERS.test(readFileSync(f, 'utf8')));
}

// Files named on the command line (`npx vitest run test/e2e/apply.test.ts`) run whatever their tier.
const named = process.argv.slice(2).some((a) => a.startsWith('test/') || a.endsWith('.test.ts'));

function tier(mode: string): { include: string[]; exclude?: string[] } {
  if (mode === 'all' || named) return { include: ['test/**/*.test.ts'] };
  const e2e = endToEnd();
  if (mode === 'e2e') return { include: e2e };
  return { include: ['test/**/*.test.ts'], exclude: e2e };
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
