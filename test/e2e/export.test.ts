/**
 * `packsync export` brings an existing account under git: the exported manifests validate (once the
 * custom package's files are put in place) and a fresh state directory adopts everything with
 * `plan --adopt` instead of creating duplicates.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
beforeEach(async () => {
  sim = await startTestSimulator();
});
afterEach(async () => {
  await sim.close();
});

describe('export', () => {
  it('writes manifests that validate and are adopted, not recreated', async () => {
    const repo = await writeRepo({ withCustom: true });
    await writeFile(
      join(repo, 'custom-flow.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata: { name: agent }\nspec: { name: Contoso Agent, package: contoso-agent }\n---\n' +
        'apiVersion: packsync.dev/v1\nkind: Deployment\nmetadata: { name: agent-1 }\nspec: { flow: agent, package: contoso-agent, state: running }\n',
    );
    const env = { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    expect((await cli(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const out = await tempDir('packsync-export-');
    const r = await cli(['export', '--out', out], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Exported 3 flows, 3 deployments and 3 packages/);
    expect(r.stdout).toMatch(/1 custom package\(s\) need their files/);
    expect((await readdir(out)).sort()).toEqual(['content', 'deployments.yaml', 'flows.yaml', 'packages.yaml']);
    expect(await readFile(join(out, 'flows.yaml'), 'utf8')).toMatch(/flags:\n\s+- startNewVersionsAutomatically\n\s+- radarTracking/);
    // As exported, the custom package has no files yet: validation says so, with the position.
    const empty = await cli(['validate', out], env);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/packages\.yaml:\d+:\d+: .*content/);
    const [contentDir] = await readdir(join(out, 'content'));
    await cp(join(repo, 'content/contoso-agent'), join(out, 'content', contentDir!), { recursive: true });
    const valid = await cli(['validate', out], env);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    const fresh = { ...env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const before = (await sim.writes()).length;
    const plan = await cli(['plan', out, '--adopt'], fresh);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/Plan: 0 to create/);
    const applied = await cli(['apply', '--auto-approve', out, '--adopt'], fresh);
    expect(applied.code).toBe(0);
    expect((await sim.writes()).length).toBe(before);
    expect((await cli(['plan', out], fresh)).stdout).toMatch(/No changes/);
  });
});
