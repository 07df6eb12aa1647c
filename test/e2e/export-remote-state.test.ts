/**
 * `packsync export` with remote state (`PACKSYNC_STATE_URL`, against Azurite): the objects the
 * remote inventory owns are skipped, and the summary names that state by its URL. Regression test:
 * it named the local state directory, which export never read.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAzurite } from '../support/azurite.js';
import type { Azurite } from '../support/azurite.js';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let azurite: Azurite;
let sim: TestSim;
beforeAll(async () => {
  azurite = await startAzurite();
  sim = await startTestSimulator();
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await azurite?.stop();
});

describe('export with remote state', () => {
  it('names the remote state it read in the summary, not the unused local state directory', async () => {
    const localDir = await tempDir('packsync-local-');
    const env = {
      PACKSYNC_API_URL: sim.url,
      PACKSYNC_API_KEY: sim.key,
      PACKSYNC_STATE_URL: 'azblob://packsync-state/export',
      AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
      PACKSYNC_STATE_DIR: localDir,
    };
    expect((await cli(['apply', '--auto-approve', await writeRepo()], env)).code).toBe(0);

    const out = join(await tempDir('packsync-export-'), 'out');
    const r = await cli(['export', '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The six objects the apply recorded in the remote inventory are the ones skipped as owned.
    expect(r.stdout).toMatch(/; 6 already owned by packsync \(state azblob:\/\/packsync-state\/export\) and 0 others skipped\./);
    expect(r.stdout).not.toContain(localDir);
    expect(r.stdout).not.toContain(azurite.accountKey);
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });
});
