/**
 * The patch stream's usual week (docs/reconcile.md "Service-driven flows"): a flow that starts new
 * versions itself has imported and started 24.09 when the update commit bumping git from 24.08 to 24.09
 * is merged. Applying it takes over the service's package and deployment: no second import, no second
 * deployment, no conflict (regression: the bump of the shipped example stopped as "exists live but is
 * not owned by packsync"), and the git deployment's gate (`wave`) then applies to the service's rollout.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

interface JsonPlan {
  objects: { key: string; change: string }[];
}

async function bump(repo: string, from: string, to: string): Promise<void> {
  const file = join(repo, 'packages.yaml');
  await writeFile(file, (await readFile(file, 'utf8')).replace(`version: "${from}"`, `version: "${to}"`));
}

describe('a version bump the service already started', () => {
  it('is taken over, not a conflict and never a second import or deployment', async () => {
    const repo = await writeRepo();
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    await sim.advance(120);
    const before = await sim.state();
    const started = before.deployments.find((d) => d.version === '24.09');
    expect(started?.status).toBe('Running');

    await bump(repo, '24.08', '24.09');
    const planned = await cli(['plan', repo, '-o', 'json', '--detailed-exitcode'], env);
    expect(planned.code).toBe(2);
    const changes = Object.fromEntries((JSON.parse(planned.stdout) as JsonPlan).objects.map((o) => [o.key, o.change]));
    expect(changes['Package/seven-zip-24-08']).toBe('adopt');
    expect(changes['Deployment/seven-zip-24-08']).toBe('adopt');

    const writes = (await sim.journal(true)).length;
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    const made = (await sim.journal(true)).slice(writes).map((e) => `${e.method} ${e.path}`);
    expect(made.filter((w) => /import|add-deployment|create/.test(w))).toEqual([]);
    const after = await sim.state();
    expect(after.packages.filter((p) => p.productVersion === '24.09')).toHaveLength(1);
    expect(after.deployments.filter((d) => d.version === '24.09').map((d) => d.id)).toEqual([started?.id]);

    expect((await cli(['plan', repo, '--detailed-exitcode'], env)).code).toBe(0);
    // A revert reuses what the bump superseded: the 24.08 package is not imported again.
    await bump(repo, '24.09', '24.08');
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    expect((await sim.state()).packages.filter((p) => p.productVersion === '24.08')).toHaveLength(1);
  });
});
