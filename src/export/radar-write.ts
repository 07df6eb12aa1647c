/**
 * `packsync radar --write DIR` (docs/reports.md#radar): a Package and a Flow manifest for each chosen
 * unmanaged app with a catalog match, named after the app (docs/manifests.md: a version bump is then a
 * one-line diff). Every file is checked before any is written: an existing file, an app that is not
 * unmanaged or has no catalog match stops the command with nothing written.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PacksyncError } from '../util/errors.js';
import type { RadarApp } from './radar.js';

export interface ManifestFile {
  path: string;
  text: string;
}

interface Chosen {
  catalog: NonNullable<RadarApp['catalog']>;
  devices: number;
  tenants: Set<string>;
}

/** Name rule of manifests (`metadata.name`): lowercase letters, digits, `-` and `.`. */
export function manifestName(app: string): string {
  const s = app
    .toLowerCase()
    .replace(/\+/g, 'p')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 128)
    .replace(/[-.]+$/, '');
  return s || 'app';
}

/** The apps to write: the named ones (radar or catalog name), else every unmanaged app with a catalog match. */
/** Whether `name` (any case) names a radar app: its radar name or its catalog match's name. */
export function namesRadarApp(a: RadarApp, name: string): boolean {
  const n = name.toLowerCase();
  return a.name.toLowerCase() === n || a.catalog?.name.toLowerCase() === n;
}

export function chooseApps(apps: RadarApp[], names: string[]): Chosen[] {
  const byCatalog = new Map<string, Chosen>();
  const wanted = names.map((n) => n.toLowerCase());
  for (const given of names) {
    const n = given.toLowerCase();
    const hit = apps.filter((a) => namesRadarApp(a, n));
    if (hit.length === 0)
      throw new PacksyncError('RADAR_WRITE', `--app "${given}" is not an unmanaged radar app (see packsync radar); nothing was written`);
    if (!hit.some((a) => a.catalog))
      throw new PacksyncError(
        'RADAR_WRITE',
        `--app "${given}" has no catalog match: write a custom Package for it by hand; nothing was written`,
      );
  }
  for (const a of apps) {
    if (!a.catalog) continue;
    if (wanted.length > 0 && !wanted.includes(a.name.toLowerCase()) && !wanted.includes(a.catalog.name.toLowerCase())) continue;
    const c = byCatalog.get(a.catalog.id) ?? { catalog: a.catalog, devices: 0, tenants: new Set<string>() };
    c.devices += a.deviceCount;
    c.tenants.add(a.tenant);
    byCatalog.set(a.catalog.id, c);
  }
  return [...byCatalog.values()].sort((a, b) => a.catalog.name.localeCompare(b.catalog.name));
}

export function radarManifests(chosen: Chosen[], day: string): ManifestFile[] {
  return chosen.flatMap((c) => {
    const name = manifestName(c.catalog.name);
    const app = JSON.stringify(c.catalog.name);
    const scope = c.catalog.machineScope ? 'machine' : 'user';
    const why = `# Written by packsync radar on ${day}: ${c.catalog.name} was found unmanaged on ${c.devices} device(s) in ${[...c.tenants].sort().join(', ')}.`;
    return [
      {
        path: `packages/${name}.yaml`,
        text: [
          why,
          'apiVersion: packsync.dev/v1',
          'kind: Package',
          'metadata:',
          `  name: ${name}`,
          'spec:',
          '  catalog:',
          `    app: ${app}`,
          `    version: ${JSON.stringify(c.catalog.latestVersion)}`,
          `    scope: ${scope}`,
          '',
        ].join('\n'),
      },
      {
        path: `flows/${name}.yaml`,
        text: [
          why,
          '# Add a patchGroup (its waves) and a Deployment of the package to roll it out.',
          'apiVersion: packsync.dev/v1',
          'kind: Flow',
          'metadata:',
          `  name: ${name}`,
          'spec:',
          `  name: ${app}`,
          `  app: ${app}`,
          `  scope: ${scope}`,
          '  flags: [radarTracking]',
          '',
        ].join('\n'),
      },
    ];
  });
}

/** Writes every file, or none: an existing file is never replaced. */
export async function writeManifests(dir: string, files: ManifestFile[]): Promise<string[]> {
  const twice = files.filter((f, i) => files.findIndex((g) => g.path === f.path) !== i);
  if (twice.length > 0)
    throw new PacksyncError(
      'RADAR_WRITE',
      `two apps would be written to ${twice[0]!.path}; name them one at a time with --app; nothing was written`,
    );
  const taken: string[] = [];
  for (const f of files) {
    if (
      await access(join(dir, f.path)).then(
        () => true,
        () => false,
      )
    )
      taken.push(f.path);
  }
  if (taken.length > 0)
    throw new PacksyncError(
      'RADAR_WRITE',
      `${taken.map((t) => join(dir, t)).join(', ')} already exist(s); packsync radar never replaces a file, nothing was written`,
    );
  for (const f of files) {
    await mkdir(dirname(join(dir, f.path)), { recursive: true });
    await writeFile(join(dir, f.path), f.text, { flag: 'wx' });
  }
  return files.map((f) => f.path);
}
