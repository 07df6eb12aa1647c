/**
 * `packsync radar [--tenant T] [--write DIR] [--app NAME]...` (docs/reports.md, docs/reports.md#radar):
 * apps the service's radar found on devices that no owned flow covers, with device counts and the
 * catalog match; `--write` writes Package + Flow manifests for them.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readUnmanagedRadar } from '../export/radar.js';
import type { RadarResult } from '../export/radar.js';
import { chooseApps, dirManifests, namesRadarApp, radarManifests, writeManifests } from '../export/radar-write.js';
import type { DirManifests } from '../export/radar-write.js';
import { coverUnread, coverage, ownedFlows, pickTenants } from '../export/report-read.js';
import { loadManifests } from '../manifests/load.js';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';

interface RadarOptions extends CommonOptions {
  tenant?: string;
  write?: string;
  app: string[];
  output: 'text' | 'json';
}

export function registerRadarCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('radar')
    .description(
      'apps radar found on devices that no owned flow covers, with device counts and the catalog match; --write writes Package + Flow manifests for them',
    )
    .option('--tenant <tenant>', 'only this tenant (id, default domain or display name)')
    .option('--write <dir>', 'write a Package and a Flow manifest per app into DIR (packages/, flows/; never replaces a file)')
    .option(
      '--app <name>',
      'only this app (radar or catalog name; repeatable): listed, and with --write written; default every app (with --write: every app with a catalog match)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .addOption(new Option('--output <format>', 'text or json').choices(['text', 'json']).default('text'));
  addCommonOptions(cmd);
  cmd.action(async (opts: RadarOptions) => {
    const dir = opts.write ? resolve(io.cwd, opts.write) : undefined;
    const inDir = dir && existsSync(dir) ? await dirNames(dir) : { apps: [], existing: undefined };
    const names = inDir.apps;
    const rt = await buildRuntime(opts, io);
    let result: RadarResult;
    // The written files' date is the service's day, as every time packsync records (docs/reports.md#radar).
    let today = new Date();
    try {
      const inventory = await rt.state.read();
      const [tenants, catalog, packages] = await Promise.all([
        rt.api.listTenants({ disablePaging: true }).then((p) => p.items),
        rt.api.searchApps({ disablePaging: true }).then((p) => p.items),
        rt.api.listPackages({ disablePaging: true }).then((p) => p.items),
      ]);
      const { flows, unread } = await ownedFlows(rt.api, inventory);
      // A flow whose read failed still covers what the state says it does (never listed, nor written, as unmanaged).
      const covered = coverage(flows, packages, names, catalog);
      coverUnread(covered, unread, inventory, catalog);
      for (const u of unread) io.stderr(`Warning: flow ${u.flow} could not be read (${u.error}); its apps are taken from the state`);
      result = await readUnmanagedRadar(rt.api, pickTenants(tenants, opts.tenant), catalog, covered);
      today = rt.api.serviceTime?.() ?? today;
    } finally {
      await rt.close();
    }
    for (const m of result.missing)
      io.stderr(`Warning: radar of tenant ${m.tenant} could not be read (${m.error}); the other tenants are listed`);
    const listed = dir ? result : onlyNamed(result, opts.app, io);
    if (opts.output === 'json') io.stdout(JSON.stringify(listed, null, 2));
    else printApps(listed, io);
    if (!dir) return;
    const files = radarManifests(chooseApps(result.apps, opts.app), today.toISOString().slice(0, 10));
    const written = await writeManifests(dir, files, inDir.existing);
    io.stderr(
      written.length > 0
        ? `Wrote ${written.length} file(s) in ${opts.write}: ${written.join(', ')}. Next: packsync validate ${opts.write} && packsync plan ${opts.write}`
        : 'No unmanaged app with a catalog match: nothing written.',
    );
  });
}

/** The listing narrowed to the apps `--app` names (radar or catalog name, any case); a name that matches none is a warning. */
function onlyNamed(r: RadarResult, names: readonly string[], io: CliIo): RadarResult {
  if (names.length === 0) return r;
  for (const n of names)
    if (!r.apps.some((a) => namesRadarApp(a, n))) io.stderr(`Warning: --app "${n}" is not an unmanaged radar app; nothing of it is listed`);
  return { ...r, apps: r.apps.filter((a) => names.some((n) => namesRadarApp(a, n))) };
}

function printApps(r: RadarResult, io: CliIo): void {
  if (r.apps.length === 0) {
    io.stdout('No unmanaged apps: every app radar found is covered by a flow packsync owns.');
    return;
  }
  let tenant = '';
  for (const a of r.apps) {
    if (a.tenant !== tenant) io.stdout(`${tenant ? '\n' : ''}${a.tenant}`);
    tenant = a.tenant;
    const match = a.catalog ? `catalog: ${a.catalog.name} ${a.catalog.latestVersion}` : 'no catalog match';
    io.stdout(
      `  ${a.name} (${a.publisher}): ${a.deviceCount} device(s) [${a.versions.map((v) => `${v.version}×${v.deviceCount}`).join(', ')}]; ${match}`,
    );
  }
}

/**
 * What the manifests already in DIR say: the catalog apps they name (not unmanaged for the purpose of
 * writing), and the names and flow display names the written manifests must not repeat.
 */
async function dirNames(dir: string): Promise<{ apps: string[]; existing: DirManifests | undefined }> {
  const loaded = await loadManifests(dir).catch(() => null);
  if (!loaded) return { apps: [], existing: undefined };
  const d = loaded.desired;
  const existing = dirManifests(d, loaded.problems);
  if (!d) return { apps: [], existing };
  return {
    apps: [
      ...d.packages.flatMap((p) => (p.spec.catalog ? [p.spec.catalog.app] : [])),
      ...d.flows.flatMap((f) => (f.spec.app ? [f.spec.app] : [])),
    ],
    existing,
  };
}
