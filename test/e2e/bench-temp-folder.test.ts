/**
 * Regression: each fleet-cli benchmark run left its fleet, its state directory and the CLI's
 * caches in the machine's /tmp (~20 MB a run; 4.3 GB on one machine). A run now makes everything
 * under a temp folder of its own and removes it when it ends (bench/run.ts); a profile it was asked
 * for is kept in the machine's folder.
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const RUN = fileURLToPath(new URL('../../dist/bench/run.js', import.meta.url));

describe('a benchmark run', () => {
  it('leaves nothing in the temp folder but the profiles it was asked for', async () => {
    const tmp = await tempDir('packsync-bench-leak-');
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
    delete env.PACKSYNC_BENCH_KEEP;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [RUN, '--scenario', 'fleet-cli', '--flows', '8', '--cpu-profile', '--json'],
      {
        env,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as { metrics: { convergeCalls: number; noopReads: number } };
    expect(last.metrics.convergeCalls).toBeGreaterThan(0);
    expect(last.metrics.noopReads).toBeGreaterThan(0);
    expect(await readdir(tmp)).toEqual(['packsync-fleet-cli-profiles']);
    // Both CLI runs' profiles: the converge and the no-op.
    expect((await readdir(join(tmp, 'packsync-fleet-cli-profiles'))).filter((f) => f.endsWith('.cpuprofile'))).toHaveLength(2);
  });
});
