/**
 * Two manifests that only the live service can tell describe one object (docs/errors.md,
 * SAME_LIVE_IDENTITY): a catalog app named by name in one Package and by id in another, one tenant
 * named by display name and by domain in two TenantUploads of the same package. The plan stops
 * with both keys named and nothing is written; before, apply imported the package twice (the API
 * cannot delete packages) and uploaded it twice.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { cli } from '../support/cli.js';
import { catalogPackageDoc, manifestDoc, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import type { SimEnv } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let s: SimEnv;
useSim((x) => (s = x));

async function sevenZipId(): Promise<string> {
  const apps = (await (await fetch(`${s.sim.url}/v1/app?search=7-Zip`, { headers: { 'X-API-Key': s.env.PACKSYNC_API_KEY! } })).json()) as {
    id: string;
    name: string;
  }[];
  return apps.find((a) => a.name === '7-Zip')!.id;
}

async function expectStopped(repo: string, keys: { second: string; first: string }): Promise<void> {
  const plan = await cli(['plan', repo, '--output', 'json'], s.env);
  expect(plan.code).toBe(1);
  const p = JSON.parse(plan.stdout) as Plan;
  const second = p.objects.find((o) => o.key === keys.second);
  expect(second?.error?.code).toBe('SAME_LIVE_IDENTITY');
  expect(second?.error?.message).toContain(keys.first);
  const apply = await cli(['apply', '--auto-approve', repo], s.env);
  expect(apply.code).toBe(1);
  expect(await s.sim.writes()).toEqual([]);
}

describe('two manifests of one live identity', () => {
  it('package-twin-by-app-id: a catalog app named by name and by id in two Packages stops the plan (regression: imported twice)', async () => {
    const repo = await tempDir('packsync-repo-');
    const id = await sevenZipId();
    await writeFile(
      join(repo, 'all.yaml'),
      yamlDocs(catalogPackageDoc('p', '7-Zip', '24.08', ['scope: machine']), catalogPackageDoc('p2', id, '24.08', ['scope: machine'])),
    );
    await expectStopped(repo, { first: 'Package/p', second: 'Package/p2' });
  });

  it('upload-twin-by-tenant-name: one tenant named by display name and by domain in two uploads of a package stops the plan (regression: uploaded twice)', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeFile(
      join(repo, 'all.yaml'),
      yamlDocs(
        catalogPackageDoc('p', '7-Zip', '24.08', ['scope: machine']),
        manifestDoc('TenantUpload', 'u1', ['tenant: Fabrikam', 'package: p']),
        manifestDoc('TenantUpload', 'u2', ['tenant: fabrikam.onmicrosoft.com', 'package: p']),
      ),
    );
    await expectStopped(repo, { first: 'TenantUpload/u1', second: 'TenantUpload/u2' });
  });
});
