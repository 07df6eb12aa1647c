/**
 * `--target Kind/NAME` (issue 20.7, operator review 3 row 7; docs/reconcile.md "Targeting"): plan,
 * apply and prune of chosen objects only, with what their actions depend on, and every other change
 * left for a later plan. Regression: pruning one removed deployment could only be done together with
 * every other orphan and superseded rollout.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { deploymentDoc, writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
let repo: string;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
  repo = await writeRepo({ pwshState: 'running' });
  expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
});
afterEach(() => sim.close());

interface JsonPlan {
  objects: { key: string; change: string }[];
  targets?: string[];
  errors: string[];
}
const planJson = async (...args: string[]): Promise<JsonPlan> => {
  const r = await cli(['plan', repo, '-o', 'json', ...args], env);
  return JSON.parse(r.stdout) as JsonPlan;
};
const changed = (p: JsonPlan): string[] => p.objects.filter((o) => o.change !== 'none').map((o) => `${o.key} ${o.change}`);
const live = async (): Promise<Record<string, string>> =>
  Object.fromEntries((await sim.state()).deployments.map((d) => [d.version, d.status]));

describe('--target', () => {
  it('plans and applies only the targeted object; the other change waits for a plan without --target', async () => {
    await writeFile(
      join(repo, 'deployments.yaml'),
      [deploymentDoc('seven-zip-24-08', 'seven-zip', 'stopped'), deploymentDoc('pwsh-7-4-6', 'pwsh', 'stopped')].join('---\n'),
    );
    expect(changed(await planJson())).toEqual(['Deployment/pwsh-7-4-6 update', 'Deployment/seven-zip-24-08 update']);
    const only = await planJson('--target', 'Deployment/pwsh-7-4-6');
    expect(changed(only)).toEqual(['Deployment/pwsh-7-4-6 update']);
    expect(only.targets).toEqual(['Deployment/pwsh-7-4-6']);
    const text = await cli(['plan', repo, '--target', 'Deployment/pwsh-7-4-6'], env);
    expect(text.stdout).toMatch(/^Targeted: Deployment\/pwsh-7-4-6/m);
    expect((await cli(['apply', repo, '--auto-approve', '--target', 'Deployment/pwsh-7-4-6'], env)).code).toBe(0);
    expect(await live()).toMatchObject({ '7.4.6': 'Stopped', '24.08': 'Running' });
    expect(changed(await planJson())).toEqual(['Deployment/seven-zip-24-08 update']);
  });

  it('prunes only the targeted orphan; the other stays live and still requires pruning', async () => {
    await writeFile(join(repo, 'deployments.yaml'), '');
    const r = await cli(['apply', repo, '--auto-approve', '--prune', '--target', 'Deployment/seven-zip-24-08'], env);
    expect(r.code).toBe(0);
    const versions = (await sim.state()).deployments.map((d) => d.version);
    expect(versions).toContain('7.4.6');
    expect(versions).not.toContain('24.08');
    const after = await cli(['plan', repo, '--detailed-exitcode'], env);
    expect(after.code).toBe(2);
    expect(after.stdout).toMatch(/Deployment\/pwsh-7-4-6/);
  });

  it('takes along what the targeted object depends on (a version bump imports the new package first)', async () => {
    await sim.admin('POST', '/_sim/releases', { app: '7-Zip', version: '24.09' });
    // The flow starts new versions itself once the import's 32 virtual seconds pass (53 ms of real
    // time here): past them on the simulator's clock, so the plan never reads the service half way
    // through its own import (regression: on a loaded machine the lists were read before it and the
    // flow after it, and the package was left out of the targeted plan).
    await sim.advance(60);
    const file = join(repo, 'packages.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('version: "24.08"', 'version: "24.09"'));
    await writeFile(
      join(repo, 'deployments.yaml'),
      [deploymentDoc('seven-zip-24-08', 'seven-zip', 'running'), deploymentDoc('pwsh-7-4-6', 'pwsh', 'stopped')].join('---\n'),
    );
    const p = await planJson('--target', 'Deployment/seven-zip-24-08');
    const keys = changed(p).map((l) => l.split(' ')[0]);
    expect(keys).toContain('Deployment/seven-zip-24-08');
    expect(keys).toContain('Package/seven-zip-24-08');
    expect(keys).not.toContain('Deployment/pwsh-7-4-6');
  });

  it('a target that names nothing is an error naming the nearest key; a malformed one is a usage error', async () => {
    const wrong = await cli(['plan', repo, '--target', 'Deployment/seven-zip', '--detailed-exitcode'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout + wrong.stderr).toMatch(
      /--target Deployment\/seven-zip matches no object of this plan \(did you mean Deployment\/seven-zip-24-08\?\)/,
    );
    const bad = await cli(['plan', repo, '--target', 'seven-zip'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--target "seven-zip" is not an object key/);
  });

  it('apply FILE refuses --target: the saved plan was already narrowed (or not) when it was made', async () => {
    const out = join(repo, '..', `plan-${Date.now()}.json`);
    await writeFile(join(repo, 'deployments.yaml'), deploymentDoc('seven-zip-24-08', 'seven-zip', 'stopped'));
    expect((await cli(['plan', repo, '--out', out, '--target', 'Deployment/seven-zip-24-08'], env)).code).toBe(0);
    const r = await cli(['apply', out, '--target', 'Deployment/pwsh-7-4-6'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--target/);
    expect((await cli(['apply', out], env)).code).toBe(0);
    expect(await live()).toMatchObject({ '24.08': 'Stopped', '7.4.6': 'Running' });
  });
});
