/**
 * `packsync --version` as a whole process, beside a bare `node -e 0` measured in the same run.
 * `--version` answers before any module loads; `packsync --help` (commander and every command's
 * options, no command module) is reported beside it as what the smallest real command pays.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './types.js';
import { median, round } from './types.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

function timeProcess(args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    execFileSync(process.execPath, args, { stdio: 'pipe' });
    times.push(performance.now() - t);
  }
  return median(times);
}

export const cliStartup: Scenario = (log) => {
  timeProcess([CLI, '--version'], 2);
  const ms = timeProcess([CLI, '--version'], 15);
  const bare = timeProcess(['-e', '0'], 15);
  timeProcess([CLI, '--help'], 2);
  const help = timeProcess([CLI, '--help'], 15);
  log(`packsync --version: ${round(ms)} ms, --help: ${round(help)} ms (bare node: ${round(bare)} ms)`);
  return Promise.resolve({
    metrics: { ms: round(ms), helpMs: round(help) },
    baseline: { nodeBareMs: round(bare), ratio: round(ms / bare, 2) },
  });
};
