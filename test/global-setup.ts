/**
 * Builds dist/ once before the suite: the e2e tests spawn the real CLI binary (crash tests kill it
 * with SIGKILL), and a stale build would test yesterday's code.
 */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
