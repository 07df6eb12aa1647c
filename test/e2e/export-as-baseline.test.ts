/**
 * `packsync export --as-baseline NAME` moves an existing account to a Baseline: the catalog flows
 * become one Baseline (a ring per patch group, each setting at the widest layer where it holds),
 * what a baseline cannot say stays plain beside it, and a fresh state adopts all of it with
 * `apply --adopt` without a single API write, after which `plan` has nothing to do.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { cli } from '../support/cli.js';
import { spawnCli } from '../support/spawn-cli.js';
import { catalogPackageDoc, manifestDoc, PILOT_FIRST, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { simEnv } from '../support/sim.js';
import type { SimEnv } from '../support/sim.js';

const EVERYONE = fixtureId(1, 'patch-group', 'Everyone at once');

let s: SimEnv | undefined;
afterEach(async () => {
  await s?.sim.close();
  s = undefined;
});

const flow = (name: string, live: string, app: string, group: string, more: string[] = []): string =>
  manifestDoc('Flow', name, [`name: ${live}`, `app: ${app}`, `patchGroup: ${group}`, ...more]);
const deployment = (name: string, flowName: string, pkg: string, state: string): string =>
  manifestDoc('Deployment', name, [`flow: ${flowName}`, `package: ${pkg}`, `state: ${state}`]);

/**
 * An account built by hand-written manifests (another team's state): three apps in a "pilot" ring
 * (flows named `App (pilot)`) and two in an "Everyone" ring (named `App - Everyone`), one of them
 * a version behind and one pending there; and a Chrome flow with two deployments, which one
 * baseline flow cannot declare.
 */
function accountYaml(): string {
  return yamlDocs(
    catalogPackageDoc('sz-2408', '7-Zip', '24.08'),
    catalogPackageDoc('sz-2407', '7-Zip', '24.07'),
    catalogPackageDoc('pwsh', 'PowerShell 7', '7.4.6'),
    catalogPackageDoc('npp', 'Notepad++', '8.7.1'),
    catalogPackageDoc('chrome-131', 'Google Chrome', '131.0.6778.86'),
    catalogPackageDoc('chrome-130', 'Google Chrome', '130.0.6723.117'),
    flow('sz-pilot', '7-Zip (pilot)', '7-Zip', PILOT_FIRST, ['flags: [startNewVersionsAutomatically]']),
    flow('pwsh-pilot', 'PowerShell 7 (pilot)', 'PowerShell 7', PILOT_FIRST, ['flags: [startNewVersionsAutomatically]']),
    flow('npp-pilot', 'Notepad++ (pilot)', 'Notepad++', PILOT_FIRST, [
      'flags: [startNewVersionsAutomatically]',
      'supersedenceHistoryCount: 2',
    ]),
    flow('sz-all', '7-Zip - Everyone', '7-Zip', EVERYONE, ['flags: [startNewVersionsAutomatically]']),
    flow('pwsh-all', 'PowerShell 7 - Everyone', 'PowerShell 7', EVERYONE, ['flags: [startNewVersionsAutomatically]']),
    flow('chrome', 'Chrome for everyone', 'Google Chrome', EVERYONE),
    deployment('sz-pilot', 'sz-pilot', 'sz-2408', 'running'),
    deployment('pwsh-pilot', 'pwsh-pilot', 'pwsh', 'running'),
    deployment('npp-pilot', 'npp-pilot', 'npp', 'running'),
    deployment('sz-all', 'sz-all', 'sz-2407', 'running'),
    deployment('pwsh-all', 'pwsh-all', 'pwsh', 'pending'),
    deployment('chrome-131', 'chrome', 'chrome-131', 'running'),
    deployment('chrome-130', 'chrome', 'chrome-130', 'stopped'),
  );
}

interface Doc {
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
}

async function docsOf(file: string): Promise<Doc[]> {
  return parseAllDocuments(await readFile(file, 'utf8')).map((d) => d.toJS() as Doc);
}

describe('export --as-baseline', () => {
  it('folds the catalog flows into one baseline that a fresh state adopts with no API write', async () => {
    s = await simEnv();
    const account = await tempDir('packsync-account-');
    await writeFile(join(account, 'account.yaml'), accountYaml());
    const built = await cli(['apply', account, '--auto-approve'], s.env);
    expect(built.code, built.stderr + built.stdout).toBe(0);

    // A new repository and a new state: everything live is unowned.
    const env = { ...s.env, PACKSYNC_STATE_DIR: await tempDir('packsync-state-') };
    const repo = await tempDir('packsync-repo-');
    const out = join(repo, 'exported');
    // The built CLI as a process, as a user runs it.
    const exported = await spawnCli(['export', '--out', out, '--as-baseline', 'standard-apps'], env, 'pipe', repo).done;
    expect(exported.code, exported.stderr + exported.stdout).toBe(0);

    const [baseline, ...more] = await docsOf(join(out, 'baseline.yaml'));
    expect(more).toEqual([]);
    expect(baseline).toMatchObject({ kind: 'Baseline', metadata: { name: 'standard-apps' } });
    expect(baseline!.spec).toEqual({
      rings: { pilot: PILOT_FIRST, everyone: EVERYONE },
      defaults: { scope: 'machine', flags: ['startNewVersionsAutomatically'], state: 'running' },
      apps: [
        { app: '7-Zip', version: '24.08' },
        { app: 'Notepad++', rings: ['pilot'], version: '8.7.1', supersedenceHistoryCount: 2 },
        { app: 'PowerShell 7', version: '7.4.6' },
      ],
      overrides: [
        { rings: ['everyone'], flowName: '{app} - Everyone' },
        { apps: ['7-Zip'], rings: ['everyone'], version: '24.07' },
        { apps: ['PowerShell 7'], rings: ['everyone'], state: 'pending' },
      ],
    });
    // Chrome's flow has two deployments: it stays plain, with both deployments and packages.
    expect((await docsOf(join(out, 'flows.yaml'))).map((d) => d.spec.name)).toEqual(['Chrome for everyone']);
    expect((await docsOf(join(out, 'deployments.yaml'))).map((d) => d.spec.package).sort()).toEqual([
      'google-chrome-130.0.6723.117',
      'google-chrome-131.0.6778.86',
    ]);
    expect((await docsOf(join(out, 'packages.yaml'))).map((d) => (d.spec.catalog as { app: string }).app)).toEqual([
      'Google Chrome',
      'Google Chrome',
    ]);

    const writes = (await s.sim.writes()).length;
    const adopted = await spawnCli(['apply', out, '--adopt', '--auto-approve'], env).done;
    expect(adopted.code, adopted.stderr + adopted.stdout).toBe(0);
    expect((await s.sim.writes()).length).toBe(writes);
    const state = JSON.parse(await readFile(join(env.PACKSYNC_STATE_DIR, 'inventory.json'), 'utf8')) as {
      objects: Record<string, unknown>;
    };
    for (const key of [
      'Flow/standard-apps.7-zip.everyone',
      'Deployment/standard-apps.powershell-7.everyone',
      'Package/standard-apps.7-zip.everyone',
      'Flow/chrome-for-everyone',
    ])
      expect(Object.keys(state.objects)).toContain(key);
    const plan = await spawnCli(['plan', out, '--detailed-exitcode'], env).done;
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);

    // The baseline renders the live names it adopted.
    const render = await cli(['render', out, '--ring', 'everyone', '--app', '7-Zip'], env);
    expect(render.stdout).toContain('name: 7-Zip - Everyone');
  });

  it('refuses a name that is not a manifest name, naming the flag, before reading or writing anything', async () => {
    s = await simEnv();
    const repo = await tempDir('packsync-repo-');
    const r = await spawnCli(['export', '--out', join(repo, 'x'), '--as-baseline', 'Standard Apps'], s.env, 'pipe', repo).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--as-baseline');
    await expect(stat(join(repo, 'x'))).rejects.toThrow();
    expect(await s.sim.journalCount()).toBe(0);
  });
});
