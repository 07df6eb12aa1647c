#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536 node --max-semi-space-size=4 --heap-growing-percent=20
/**
 * The packsync CLI. `--version` answers before any module loads (startup time is a benchmark);
 * everything else is imported on demand by the command that needs it.
 */
import { readFileSync } from 'node:fs';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${version()}\n`);
} else {
  // Before undici compiles its HTTP parser (cli/wasm-policy.ts).
  const { baselineWasmOnly } = await import('./wasm-policy.js');
  baselineWasmOnly();
  const { runCli } = await import('./run-cli.js');
  const { processIo } = await import('./io.js');
  const { installDefaultInterrupt } = await import('./default-interrupt.js');
  const io = processIo();
  installDefaultInterrupt(argv, io.stderr);
  await runCli(process.argv, io, version());
}
