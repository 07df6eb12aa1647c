#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536 node --max-semi-space-size=4 --v8-pool-size=1
/**
 * The packsync CLI. `--version` answers before any module loads (startup time is a benchmark);
 * everything else is imported on demand by the command that needs it.
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// The old generation grows by a fifth past what survives each major GC (docs/performance.md,
// "fleet-cli", the bin's heap policy). Set here rather than in the shebang, which Linux before 5.1
// cuts at 127 bytes and which holds `--v8-pool-size=1`, a flag only the command line can set; V8
// reads this one whenever it computes the next heap limit. A growth the user gave Node wins.
if (!process.execArgv.some((a) => /^--heap[-_]growing[-_]percent/.test(a))) {
  setFlagsFromString('--heap-growing-percent=20');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${version()}\n`);
} else {
  const { runCli } = await import('./run-cli.js');
  const { processIo } = await import('./io.js');
  await runCli(process.argv, processIo(), version());
}
