/**
 * `radar --write` names and safety (docs/reports.md#packsync-radar): manifest names follow the name
 * rule for any app name, and two apps that would share a file stop the command before anything is
 * written (regression guard: the second write would have failed after the first landed).
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseApps, dirManifests, manifestName, radarManifests, writeManifests } from '../../src/export/radar-write.js';
import { loadManifests } from '../../src/manifests/load.js';
import type { RadarApp } from '../../src/export/radar.js';
import { tempDir } from '../support/repo.js';

const NAME_RULE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function app(name: string, id: string): RadarApp {
  return {
    tenantId: 't',
    tenant: 'Contoso',
    name,
    publisher: 'P',
    deviceCount: 2,
    versions: [{ version: '1.0', deviceCount: 2 }],
    catalog: { id, name, latestVersion: '1.0', machineScope: true },
  };
}

describe('radar --write', () => {
  it('names manifests after the app, within the name rule', () => {
    expect(manifestName('Notepad++')).toBe('notepadpp');
    expect(manifestName('Microsoft Visual Studio Code')).toBe('microsoft-visual-studio-code');
    expect(manifestName('7-Zip')).toBe('7-zip');
    for (const n of ['  --Weird__App!! ', '.NET Runtime 8.0', 'Ünïcödé', 'x'.repeat(300), '***']) {
      const m = manifestName(n);
      expect(m).toMatch(NAME_RULE);
      expect(m.length).toBeLessThanOrEqual(128);
    }
  });

  it('two apps that would share a file: refused, nothing written', async () => {
    const dir = await tempDir('packsync-radar-write-');
    const files = radarManifests(chooseApps([app('Foo Bar', 'a1'), app('Foo-Bar', 'a2')], []), '2026-11-25');
    await expect(writeManifests(dir, files)).rejects.toThrow(/two apps would be written to packages\/foo-bar\.yaml/);
    expect(await readdir(dir)).toEqual([]);
  });

  /** radar --write's check of DIR: its manifests as loaded, as radar-command reads them. */
  async function existing(dir: string): Promise<ReturnType<typeof dirManifests>> {
    const l = await loadManifests(dir);
    return dirManifests(l.desired, l.problems);
  }

  it('radar-write-name-taken: a flow DIR has under another metadata.name with the same display name is refused, nothing written', async () => {
    const dir = await tempDir('packsync-radar-write-');
    // Found live by its name "Foo Bar", as the written flow would be: validate calls that flow.duplicate.
    await writeFile(
      join(dir, 'old.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: old-foo\nspec:\n  name: "Foo Bar"\n  app: "Something Else"\n',
    );
    const files = radarManifests(chooseApps([app('Foo Bar', 'a1')], []), '2026-11-25');
    await expect(writeManifests(dir, files, await existing(dir))).rejects.toThrow(
      /flows\/foo-bar\.yaml would define a flow named "Foo Bar", which Flow\/old-foo \(old\.yaml:1:1\) already is/,
    );
    expect(await readdir(dir)).toEqual(['old.yaml']);
  });

  it('radar-write-invalid-dir: a DIR that does not validate is refused (nothing written could validate there)', async () => {
    const dir = await tempDir('packsync-radar-write-');
    await writeFile(join(dir, 'broken.yaml'), 'apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: x\nspec: {}\n');
    const files = radarManifests(chooseApps([app('Foo Bar', 'a1')], []), '2026-11-25');
    await expect(writeManifests(dir, files, await existing(dir))).rejects.toThrow(
      /does not validate \(broken\.yaml:\d+:\d+: .*fix it first/,
    );
    expect(await readdir(dir)).toEqual(['broken.yaml']);
  });
});
