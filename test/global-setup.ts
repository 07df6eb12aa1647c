/**
 * Before the suite: builds dist/ once, and gives the run a temporary folder of its own.
 *
 * The build: the e2e tests spawn the real CLI binary (crash tests kill it with SIGKILL), and a
 * stale build would test yesterday's code. It emits without type checking (`--noCheck`, ~4 s
 * instead of ~10 s; the same files, since `isolatedModules` makes every file's output independent
 * of types): vitest itself never checks types, `npm run typecheck` does, in CI too.
 * `PACKSYNC_REUSE_BUILD=1` keeps the dist/ an earlier run of the same checkout built (CI's second
 * tier and its Node 24 run), so one CI run compiles once.
 *
 * The folder: every test makes its repositories, state and keys with `tempDir` (or a child process
 * under the same TMPDIR), and none removes them; each run of the suites left ~1,000 folders in the
 * machine's /tmp. TMPDIR points the workers and what they start at one folder per run, removed
 * when the run ends.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  if (process.env.PACKSYNC_REUSE_BUILD !== '1' || !existsSync('dist/src/cli/main.js')) {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck'], { stdio: 'inherit' });
  }
  const before = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'packsync-test-run-'));
  process.env.TMPDIR = runDir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  };
}
