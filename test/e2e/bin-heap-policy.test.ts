/**
 * The CLI sets its own memory policy in its bin's shebang (`env -S MALLOC_ARENA_MAX=2
 * MALLOC_TRIM_THRESHOLD_=65536 node --max-semi-space-size=4 --heap-growing-percent=20`,
 * docs/performance.md "fleet-cli"): the bin must
 * start through that line as npm links it (executable, run by the kernel), and both the flags and
 * the environment must reach Node.
 */
import { execFile } from 'node:child_process';
import { chmod, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { binCommand, CLI_BIN } from '../support/spawn-cli.js';

const run = promisify(execFile);

describe('the bin heap policy', () => {
  it('starts through its shebang with the heap flags', async () => {
    const first = (await readFile(CLI_BIN, 'utf8')).split('\n', 1)[0];
    expect(first).toBe(
      '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=65536 node --max-semi-space-size=4 --heap-growing-percent=20',
    );
    // What npm does when it links a bin: make it executable; the kernel then runs the shebang.
    await chmod(CLI_BIN, 0o755);
    const out = await run(CLI_BIN, ['--version'], { env: { PATH: process.env.PATH ?? '' } });
    expect(out.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // The benchmarks start it the same way, with this Node.
    const bin = binCommand();
    expect(bin.args).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=20', CLI_BIN]);
    expect(bin.env).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '65536' });
    const flags = await run(process.execPath, [...bin.args.slice(0, -1), '-p', 'process.execArgv.slice(0, 2).join(" ")']);
    expect(flags.stdout.trim()).toBe('--max-semi-space-size=4 --heap-growing-percent=20');
    // The shebang's own line, with the script swapped for a probe: env(1) sets the variable for Node.
    const line = first!
      .replace(/^#!\S*env -S /, '')
      .replace(/ node .*$/, ' node -p "process.env.MALLOC_ARENA_MAX + \' \' + process.env.MALLOC_TRIM_THRESHOLD_"');
    const probe = await run('/usr/bin/env', ['-S', line], { env: { PATH: process.env.PATH ?? '' } });
    expect(probe.stdout.trim()).toBe('2 65536');
  });
});
