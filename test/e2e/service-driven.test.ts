/**
 * Service-driven flows (issue 22, docs/reconcile.md "Service-driven flows"): the seven-zip flow of the
 * standard repository starts new versions automatically. After a catalog release the service starts the
 * new version itself and stops (or removes) the one git declares. packsync lists the service's
 * deployment under its flow, never prunes it, and never starts or adds the superseded one again
 * (regression: apply healed the service's stop as drift, fighting the service's own rollout).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { flowsYaml, writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(() => sim.close());

interface JsonPlan {
  objects: { key: string; change: string; reasons: string[]; serviceStarted?: { version: string; status: string }[] }[];
}

const withHistory = (n: number): string => flowsYaml([`supersedenceHistoryCount: ${n}`]);

async function releasedAndStarted(repo: string): Promise<void> {
  expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
  await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
  await sim.advance(120);
}

describe('a flow that starts new versions itself', () => {
  it('lists the service’s deployment under its flow and does not start the one it stopped again', async () => {
    const repo = await writeRepo();
    await writeFile(join(repo, 'flows.yaml'), withHistory(1));
    await releasedAndStarted(repo);
    const deployments = (await sim.state()).deployments.map((d) => [d.version, d.status]);
    expect(deployments).toEqual(
      expect.arrayContaining([
        ['24.08', 'Stopped'],
        ['24.09', 'Running'],
      ]),
    );
    const r = await cli(['plan', repo, '-o', 'json', '--detailed-exitcode'], env);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as JsonPlan;
    const flow = plan.objects.find((o) => o.key === 'Flow/seven-zip');
    expect(flow?.serviceStarted).toEqual([expect.objectContaining({ version: '24.09', status: 'Running' })]);
    const dep = plan.objects.find((o) => o.key === 'Deployment/seven-zip-24-08');
    expect(dep?.change).toBe('none');
    expect(dep?.reasons.join(' ')).toMatch(/superseded by the service: the flow started 24\.09/);
    const writes = (await sim.journal(true)).length;
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    expect((await cli(['apply', repo, '--auto-approve', '--prune'], env)).code).toBe(0);
    expect((await sim.journal(true)).slice(writes)).toEqual([]);
    expect((await sim.state()).deployments.find((d) => d.version === '24.09')?.status).toBe('Running');
  });

  it('does not add back a deployment the service removed beyond supersedenceHistoryCount', async () => {
    const repo = await writeRepo();
    await writeFile(join(repo, 'flows.yaml'), withHistory(0));
    await releasedAndStarted(repo);
    expect((await sim.state()).deployments.map((d) => d.version)).not.toContain('24.08');
    const r = await cli(['plan', repo, '-o', 'json', '--detailed-exitcode'], env);
    const dep = (JSON.parse(r.stdout) as JsonPlan).objects.find((o) => o.key === 'Deployment/seven-zip-24-08');
    expect(dep?.reasons.join(' ')).toMatch(/superseded by the service: the flow started 24\.09 .* and removed this deployment/);
    expect(r.code).toBe(0);
    const writes = (await sim.journal(true)).length;
    expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
    expect((await sim.journal(true)).slice(writes)).toEqual([]);
  });
});
