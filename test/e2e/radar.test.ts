/**
 * `packsync radar` (docs/reports.md, docs/reports.md#radar) against the simulator's radar fixtures: apps
 * no owned flow covers, with device counts equal to the service's radar list and the catalog match;
 * a tenant whose radar read fails is named and the others are listed; `--write` writes Package +
 * Flow manifests that validate and plan, all or none, never replacing a file.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RadarResult } from '../../src/export/radar.js';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import type { SimEnv } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let s: SimEnv;
useSim((x) => (s = x));

const env = (): Record<string, string> => ({ PACKSYNC_API_URL: s.sim.url, PACKSYNC_API_KEY: s.sim.key, PACKSYNC_STATE_DIR: s.stateDir });
const api = async <T>(path: string): Promise<T> =>
  (await (await fetch(`${s.sim.url}/v1${path}`, { headers: { 'X-API-Key': s.sim.key } })).json()) as T;

async function ownSevenZip(): Promise<void> {
  const repo = await tempDir('packsync-repo-');
  await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h'));
  const r = await cli(['apply', '--auto-approve', repo], env());
  expect(r.code, r.stderr).toBe(0);
}

describe('packsync radar', () => {
  it('lists the apps no owned flow covers, with the service’s device counts and the catalog match', async () => {
    await ownSevenZip();
    const out = await cli(['radar', '--output', 'json'], env());
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as RadarResult;
    expect(r.missing).toEqual([]);
    const tenants = await api<{ id: string; displayName: string }[]>('/tenant');
    for (const t of tenants) {
      const radar = await api<{ name: string; deviceCount: number; matchedAppId: string | null }[]>(`/tenant/${t.id}/radar`);
      const listed = r.apps.filter((a) => a.tenantId === t.id);
      // Everything radar found except the app packsync's flow deploys (7-Zip).
      expect(listed.map((a) => a.name).sort()).toEqual(
        radar
          .filter((a) => a.name !== '7-Zip')
          .map((a) => a.name)
          .sort(),
      );
      for (const a of listed) {
        const found = radar.find((x) => x.name === a.name)!;
        expect(a.deviceCount).toBe(found.deviceCount);
        expect(a.catalog?.id ?? null).toBe(found.matchedAppId);
      }
    }
    const contoso = await cli(['radar', '--tenant', 'contoso.onmicrosoft.com'], env());
    expect(contoso.stdout.split('\n')[0]).toBe('Contoso');
    expect(contoso.stdout).toMatch(/Notepad\+\+ \(Notepad\+\+ Team\): \d+ device\(s\) \[.*\]; catalog: Notepad\+\+ /);
    expect(contoso.stdout).toMatch(/Contoso Legacy CRM \(Contoso\): \d+ device\(s\) .*; no catalog match/);
    const unknown = await cli(['radar', '--tenant', 'nowhere.example'], env());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/REPORT_UNKNOWN_TENANT: --tenant "nowhere.example" names no tenant/);
  });

  it('--app narrows the listing too (regression: without --write it was ignored); a name radar did not find is a warning', async () => {
    await ownSevenZip();
    const out = await cli(['radar', '--output', 'json', '--app', 'notepad++', '--app', 'No Such App'], env());
    expect(out.code, out.stderr).toBe(0);
    const r = JSON.parse(out.stdout) as RadarResult;
    expect(r.apps.length).toBeGreaterThan(0);
    expect(new Set(r.apps.map((a) => a.name))).toEqual(new Set(['Notepad++']));
    expect(out.stderr).toMatch(/--app "No Such App" is not an unmanaged radar app/);
  });

  it('names a tenant whose radar read fails and lists the others', async () => {
    const tenants = await api<{ id: string; displayName: string }[]>('/tenant');
    const fabrikam = tenants.find((t) => t.displayName === 'Fabrikam')!;
    await s.sim.admin('PUT', '/_sim/faults', { '5xx': 1, path: `/tenant/${fabrikam.id}/radar` });
    const out = await cli(['radar', '--output', 'json'], env());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/radar of tenant Fabrikam could not be read \(API_UNAVAILABLE/);
    const r = JSON.parse(out.stdout) as RadarResult;
    expect(r.missing.map((m) => m.tenant)).toEqual(['Fabrikam']);
    expect(new Set(r.apps.map((a) => a.tenant))).toEqual(new Set(['Contoso', 'Northwind Traders', 'Tailspin Toys']));
  }, 60_000);

  it('--write writes Package + Flow manifests that validate and plan; all or none, never over a file', async () => {
    await ownSevenZip();
    const dir = await tempDir('packsync-radar-');
    const w = await cli(['radar', '--write', dir, '--app', 'Notepad++', '--app', 'vlc media player'], env());
    expect(w.code, w.stderr).toBe(0);
    expect((await readdir(join(dir, 'packages'))).sort()).toEqual(['notepadpp.yaml', 'vlc-media-player.yaml']);
    expect(await readFile(join(dir, 'packages', 'notepadpp.yaml'), 'utf8')).toMatch(/app: "Notepad\+\+"\n {4}version: "8\.7\.1"/);
    expect((await cli(['validate', dir], env())).code).toBe(0);
    const plan = await cli(['plan', dir, '--output', 'json'], env());
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as { objects: { key: string; change: string }[] };
    expect(planned.objects.map((o) => `${o.key}:${o.change}`).sort()).toEqual([
      'Flow/notepadpp:create',
      'Flow/vlc-media-player:create',
      'Package/notepadpp:create',
      'Package/vlc-media-player:create',
    ]);

    // A file in the way: nothing is written, not even the other app's files.
    const other = await tempDir('packsync-radar-');
    await mkdir(join(other, 'flows'));
    await writeFile(join(other, 'flows', 'google-chrome.yaml'), '# mine\n');
    const refused = await cli(['radar', '--write', other, '--app', 'Google Chrome', '--app', 'Mozilla Firefox'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/RADAR_WRITE: .*google-chrome\.yaml already exist/);
    expect(await readdir(other)).toEqual(['flows']);
    expect(await readFile(join(other, 'flows', 'google-chrome.yaml'), 'utf8')).toBe('# mine\n');
    // The header's date is the service's day, not this machine's (regression: the machine's date was written).
    await s.sim.advance(3 * 86_400);
    const serviceDay = ((await s.sim.admin('GET', '/_sim/clock')) as { now: string }).now.slice(0, 10);
    const later = await tempDir('packsync-radar-');
    expect((await cli(['radar', '--write', later, '--app', 'Mozilla Firefox'], env())).code).toBe(0);
    const header = (await readFile(join(later, 'packages', 'mozilla-firefox.yaml'), 'utf8')).split('\n', 1)[0]!;
    expect(header).toContain(`# Written by packsync radar on ${serviceDay}:`);
    const noMatch = await cli(['radar', '--write', other, '--app', 'Contoso Legacy CRM'], env());
    expect(noMatch.code).toBe(1);
    expect(noMatch.stderr).toMatch(/RADAR_WRITE: --app "Contoso Legacy CRM" has no catalog match/);
  });

  it('radar-write-name-taken: a Package or Flow name DIR already uses stops --write with RADAR_WRITE, nothing written; DIR still validates', async () => {
    await ownSevenZip();
    const legacy = (kind: string, app: string): string =>
      `apiVersion: packsync.dev/v1\nkind: ${kind}\nmetadata:\n  name: google-chrome\nspec:\n${kind === 'Package' ? `  catalog:\n    app: "${app}"\n    version: "latest"\n` : `  app: "${app}"\n`}`;
    for (const kind of ['Package', 'Flow']) {
      // The name google-chrome holds another app: before, packages/ (or flows/) google-chrome.yaml was
      // written anyway (exit 0) and validate then failed on the duplicate name.
      const dir = await tempDir('packsync-radar-taken-');
      await writeFile(join(dir, 'legacy.yaml'), legacy(kind, 'Mozilla Firefox'));
      expect((await cli(['validate', dir], env())).code).toBe(0);
      const w = await cli(['radar', '--write', dir, '--app', 'Google Chrome'], env());
      expect(w.code, w.stdout).toBe(1);
      expect(w.stderr).toMatch(new RegExp(`RADAR_WRITE: .*would define ${kind}/google-chrome, which .*legacy\\.yaml:1:1 already defines`));
      expect(await readdir(dir)).toEqual(['legacy.yaml']);
      expect((await cli(['validate', dir], env())).code).toBe(0);
    }
  });
});
