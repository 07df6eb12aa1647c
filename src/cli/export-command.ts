import type { Command } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { emptyInventory } from '../apply/inventory-types.js';
import { exportManifests } from '../export/export-manifests.js';
import { readLiveState } from '../live/snapshot.js';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';

export function registerExportCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('export')
    .description('write manifests for what exists live (flows, their deployments and packages) to bring an account under git')
    .option('--out <dir>', 'directory to write', 'exported');
  addCommonOptions(cmd);
  cmd.action(async (opts: CommonOptions & { out: string }) => {
    const rt = await buildRuntime(opts, io);
    try {
      const empty = { root: io.cwd, packages: [], flows: [], deployments: [], tenantUploads: [] };
      // Catalog apps and templates are read so manifests can name them instead of quoting ids.
      const probe = { ...empty, flows: [{ apiVersion: 'packsync.dev/v1' as const, kind: 'Flow' as const, metadata: { name: 'x' }, spec: { app: 'x', scriptTemplate: 'x' }, source: { file: '', line: 1, column: 1 } }] };
      const snap = await readLiveState(rt.api, probe, emptyInventory(), { allFlowDetails: true });
      const out = exportManifests(snap.live);
      const dir = resolve(io.cwd, opts.out);
      await mkdir(dir, { recursive: true });
      for (const [name, text] of Object.entries(out.files)) await writeFile(join(dir, name), text);
      io.stdout(`Exported ${out.counts.flows} flows, ${out.counts.deployments} deployments and ${out.counts.packages} packages to ${dir} (${snap.reads} API reads).`);
      for (const c of out.contentDirs) await mkdir(join(dir, c), { recursive: true });
      if (out.contentDirs.length > 0) {
        io.stdout(`${out.contentDirs.length} custom package(s) need their files: put them in ${out.contentDirs.map((c) => join(opts.out, c)).join(', ')} (the service cannot return the original content).`);
      }
      io.stdout(`Next: packsync validate ${opts.out} && packsync plan ${opts.out} --adopt`);
    } finally {
      await rt.close();
    }
  });
}
