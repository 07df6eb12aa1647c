/**
 * `packsync radar --write DIR` (docs/reports.md#radar): a Package and a Flow manifest for each chosen
 * unmanaged app with a catalog match, named after the app (docs/manifests.md: a version bump is then a
 * one-line diff). Every file is checked before any is written: an existing file, a name or flow
 * display name the manifests already in DIR use, a DIR that does not validate, an app that is not
 * unmanaged or has no catalog match stops the command with nothing written, so what is written
 * validates with DIR as it is.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DesiredModel, Problem } from '../manifests/model.js';
import { PacksyncError } from '../util/errors.js';
import type { RadarApp } from './radar.js';

export interface ManifestFile {
  path: string;
  text: string;
  /** What the file defines: `Kind/name`, and for a Flow the display name it is found live by (spec.name). */
  key: string;
  flowName?: string;
}

/**
 * What the manifests already in DIR define, where the written ones could clash with them (names are
 * unique per kind; a flow's display name is its live identity, docs/manifests.md): `Kind/name` and
 * flow display names, each with where it is. `invalid`: DIR does not validate, so nothing written
 * there could.
 */
export interface DirManifests {
  keys: Map<string, string>;
  flowNames: Map<string, string>;
  invalid?: Problem;
}

/** DIR's manifests as radar --write checks against them (`desired` null: DIR does not validate). */
export function dirManifests(desired: DesiredModel | null, problems: readonly Problem[]): DirManifests {
  const out: DirManifests = { keys: new Map(), flowNames: new Map() };
  if (!desired) {
    const first = problems.find((p) => p.severity === 'error');
    if (first) out.invalid = first;
    return out;
  }
  const at = (m: { source: { file: string; line: number; column: number } }): string =>
    `${m.source.file}:${m.source.line}:${m.source.column}`;
  for (const m of desired.packages) out.keys.set(`Package/${m.metadata.name}`, at(m));
  for (const m of desired.flows) {
    out.keys.set(`Flow/${m.metadata.name}`, at(m));
    out.flowNames.set(m.spec.name ?? m.metadata.name, `Flow/${m.metadata.name} (${at(m)})`);
  }
  return out;
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
        key: `Package/${name}`,
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
        key: `Flow/${name}`,
        flowName: c.catalog.name,
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

/**
 * Why the files cannot join DIR's manifests and validate: a name of their kind or a flow display name
 * DIR already uses (regression: packages/NAME.yaml was written beside another Package NAME, and
 * validate then failed on the duplicate). Empty when they can.
 */
function clashes(dir: string, files: readonly ManifestFile[], existing: DirManifests): string[] {
  const out: string[] = [];
  for (const f of files) {
    const key = existing.keys.get(f.key);
    if (key) out.push(`${f.path} would define ${f.key}, which ${join(dir, key)} already defines (names are unique per kind)`);
    const flow = f.flowName === undefined ? undefined : existing.flowNames.get(f.flowName);
    if (flow && !key)
      out.push(`${f.path} would define a flow named "${f.flowName}", which ${flow} already is (a flow is found live by its name)`);
  }
  return out;
}

/** Writes every file, or none: an existing file is never replaced, a name DIR's manifests use never repeated. */
export async function writeManifests(dir: string, files: ManifestFile[], existing?: DirManifests): Promise<string[]> {
  const twice = files.filter((f, i) => files.findIndex((g) => g.path === f.path || g.key === f.key) !== i);
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
  const bad = existing?.invalid;
  if (bad)
    throw new PacksyncError(
      'RADAR_WRITE',
      `${dir} does not validate (${bad.file}:${bad.line}:${bad.column}: ${bad.message}), so nothing written there could: fix it first (packsync validate ${dir}); nothing was written`,
    );
  const clash = existing ? clashes(dir, files, existing) : [];
  if (clash.length > 0)
    throw new PacksyncError(
      'RADAR_WRITE',
      `${clash.join('; ')}; rename or remove the manifest in the way, or write to another directory; nothing was written`,
    );
  for (const f of files) {
    await mkdir(dirname(join(dir, f.path)), { recursive: true });
    await writeFile(join(dir, f.path), f.text, { flag: 'wx' });
  }
  return files.map((f) => f.path);
}
