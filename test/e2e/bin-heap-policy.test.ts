/**
 * The CLI sets its own memory policy (docs/performance.md "fleet-cli", the bin's heap policy): its
 * bin's shebang (`env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536 node
 * --max-semi-space-size=4 --v8-pool-size=1`) and, at the top of main.js, the old generation's growth
 * (`--heap-growing-percent=20`, kept out of the shebang because Linux before 5.1 cuts it at 127
 * bytes). The bin must start through that line as npm links it (executable, run by the kernel), the
 * flags and the environment must reach Node, and the growth policy must take effect.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { binCommand, CLI_BIN } from '../support/spawn-cli.js';

const run = promisify(execFile);
const SHEBANG = '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536 node --max-semi-space-size=4 --v8-pool-size=1';

/** Full mark-compacts (`--trace-gc`) of a probe that keeps ~100 MiB alive, after importing main.js or not. */
async function markCompacts(dir: string, importMain: boolean, nodeFlags: string[] = []): Promise<{ count: number; stdout: string }> {
  const probe = join(dir, `probe-${String(importMain)}.mjs`);
  await writeFile(
    probe,
    [
      importMain ? `await import(${JSON.stringify(pathToFileURL(CLI_BIN).href)});` : '',
      'const keep = [];',
      "for (let i = 0; i < 1000000; i++) keep.push({ a: i, b: 'x' + i, c: [i, i + 1] });",
      'globalThis.kept = keep.length;',
    ].join('\n'),
  );
  const bin = binCommand();
  const out = await run(process.execPath, [...bin.args.slice(0, -1), ...nodeFlags, '--trace-gc', probe, '--version'], {
    env: { PATH: process.env.PATH ?? '' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return { count: out.stdout.split('\n').filter((l) => l.includes('Mark-Compact')).length, stdout: out.stdout };
}

describe('the bin heap policy', () => {
  it('starts through its shebang with the heap flags', async () => {
    const first = (await readFile(CLI_BIN, 'utf8')).split('\n', 1)[0];
    expect(first).toBe(SHEBANG);
    expect(first!.length).toBeLessThanOrEqual(127);
    // What npm does when it links a bin: make it executable; the kernel then runs the shebang.
    await chmod(CLI_BIN, 0o755);
    const out = await run(CLI_BIN, ['--version'], { env: { PATH: process.env.PATH ?? '' } });
    expect(out.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // The benchmarks start it the same way, with this Node.
    const bin = binCommand();
    expect(bin.args).toEqual(['--max-semi-space-size=4', '--v8-pool-size=1', CLI_BIN]);
    expect(bin.env).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '65536' });
    const flags = await run(process.execPath, [...bin.args.slice(0, -1), '-p', 'process.execArgv.slice(0, 2).join(" ")']);
    expect(flags.stdout.trim()).toBe('--max-semi-space-size=4 --v8-pool-size=1');
    // The shebang's own line, with the script swapped for a probe: env(1) sets the variable for Node.
    const line = first!
      .replace(/^#!\S*env -S /, '')
      .replace(/ node .*$/, ' node -p "process.env.MALLOC_ARENA_MAX + \' \' + process.env.MALLOC_TRIM_THRESHOLD_"');
    const probe = await run('/usr/bin/env', ['-S', line], { env: { PATH: process.env.PATH ?? '' } });
    expect(probe.stdout.trim()).toBe('2 65536');
  });

  it('grows the old generation by a fifth once main.js has run, unless the user set the growth', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'packsync-heap-'));
    try {
      const plain = await markCompacts(dir, false);
      const policy = await markCompacts(dir, true);
      // main.js ran (it answered --version) and the heap then grew in small steps: more full GCs.
      expect(policy.stdout).toMatch(/^\d+\.\d+\.\d+$/m);
      expect(policy.count).toBeGreaterThanOrEqual(2 * Math.max(plain.count, 1));
      // A growth the user gave Node is left alone.
      const own = await markCompacts(dir, true, ['--heap-growing-percent=300']);
      expect(own.count).toBeLessThan(policy.count);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
