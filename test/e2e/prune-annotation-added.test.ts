/**
 * `packsync.dev/prune: disabled` added to an object packsync already owns protects it (docs/reconcile.md,
 * "Prune"): regression test for a deployment that `--prune` deleted because the annotation reached the
 * state only when an object was created. The annotation is recorded by the next apply (no API call),
 * and removing it later is recorded too.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';
import { catalogPackageDoc, deploymentDoc, flowDoc, manifestDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { useSim } from '../support/use-sim.js';
import type { SimEnv } from '../support/sim.js';

let s: SimEnv;
useSim((x) => (s = x));

const KEY = 'Deployment/seven-zip-24-08';
const base = [catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08'), flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`])];
const protectedDeployment = manifestDoc(
  'Deployment',
  'seven-zip-24-08',
  ['flow: seven-zip', 'package: seven-zip-24-08', 'state: running'],
  ['annotations:', '  packsync.dev/prune: disabled'],
);
const entry = async (): Promise<Inventory['objects'][string] | undefined> =>
  (JSON.parse(await readFile(join(s.env.PACKSYNC_STATE_DIR!, 'inventory.json'), 'utf8')) as Inventory).objects[KEY];

describe('a prune annotation added to an owned object', () => {
  it('is recorded by the next apply without an API call, and --prune then forgets the deployment instead of deleting it', async () => {
    const repo = await tempDir('packsync-repo-');
    const file = join(repo, 'all.yaml');
    await writeFile(file, yamlDocs(...base, deploymentDoc('seven-zip-24-08', 'seven-zip', 'running')));
    expect((await cli(['apply', '--auto-approve', repo], s.env)).code).toBe(0);
    const id = (await entry())?.id;

    await writeFile(file, yamlDocs(...base, protectedDeployment));
    const writes = (await s.sim.writes()).length;
    const plan = await cli(['plan', repo, '--detailed-exitcode'], s.env);
    expect(plan.code, plan.stdout).toBe(2);
    expect((await cli(['apply', '--auto-approve', repo], s.env)).code).toBe(0);
    expect((await s.sim.writes()).slice(writes)).toEqual([]);
    expect((await entry())?.annotations).toEqual({ 'packsync.dev/prune': 'disabled' });
    expect((await cli(['plan', repo, '--detailed-exitcode'], s.env)).code).toBe(0);

    await writeFile(file, yamlDocs(...base));
    const pruned = await cli(['apply', '--auto-approve', '--prune', repo], s.env);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect((await s.sim.writes()).slice(writes)).toEqual([]);
    expect((await s.sim.state()).deployments.map((d) => d.id)).toContain(id);
    expect(await entry()).toBeUndefined();
  });

  it('removing the annotation is recorded too: the next --prune deletes as usual', async () => {
    const repo = await tempDir('packsync-repo-');
    const file = join(repo, 'all.yaml');
    await writeFile(file, yamlDocs(...base, protectedDeployment));
    expect((await cli(['apply', '--auto-approve', repo], s.env)).code).toBe(0);
    await writeFile(file, yamlDocs(...base, deploymentDoc('seven-zip-24-08', 'seven-zip', 'running')));
    expect((await cli(['apply', '--auto-approve', repo], s.env)).code).toBe(0);
    expect((await entry())?.annotations).toBeUndefined();
    await writeFile(file, yamlDocs(...base));
    expect((await cli(['apply', '--auto-approve', '--prune', repo], s.env)).code).toBe(0);
    expect((await s.sim.writes()).filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /v1/flow/deployment/{id}']);
  });
});
