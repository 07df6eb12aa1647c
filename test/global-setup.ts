/**
 * Builds dist/ once before the suite: the e2e tests spawn the real CLI binary (crash tests kill it
 * with SIGKILL), and a stale build would test yesterday's code. It emits without type checking
 * (`--noCheck`, ~4 s instead of ~10 s; the same files, since `isolatedModules` makes every file's
 * output independent of types): vitest itself never checks types, `npm run typecheck` does, in CI too.
 * `PACKSYNC_REUSE_BUILD=1` keeps the dist/ an earlier run of the same checkout built (CI's second
 * tier and its Node 24 run), so one CI run compiles once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export default function setup(): void {
  if (process.env.PACKSYNC_REUSE_BUILD === '1' && existsSync('dist/src/cli/main.js')) return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck'], { stdio: 'inherit' });
}
