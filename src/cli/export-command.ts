import type { Command } from 'commander';
import { mkdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { exportedFiles, exportObjects } from '../export/export-manifests.js';
import type { ExportedFiles } from '../export/export-manifests.js';
import { foldIntoBaseline } from '../export/as-baseline.js';
import type { BaselineFold } from '../export/as-baseline.js';
import { checkTargetDir, writeNewFile } from '../export/target-dir.js';
import { nextStep } from '../export/next-step.js';
import { readLiveState } from '../live/snapshot.js';
import { repositoryRoot } from '../manifests/load.js';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { shownPath } from './paths.js';

/** The pattern of `metadata.name` (schemas/v1/package.json), checked before anything is read. */
const BASELINE_NAME = /^(?=.{1,128}$)[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

interface ExportOptions extends CommonOptions {
  out: string;
  force: boolean;
  asBaseline?: string;
}

/** At most this many skipped objects are named per reason; the count is always given. */
const SKIPPED_SHOWN = 5;

export function registerExportCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('export')
    .description(
      'write manifests for what exists live (packages, flows, deployments, tenant uploads) that packsync does not own yet, to bring an account under git',
    )
    .option('--out <dir>', 'directory to write (must be empty unless --force)', 'exported')
    .option('--force', 'write into a non-empty directory (existing files are kept: a taken name gets a -2, -3… suffix)', false)
    .option(
      '--as-baseline <name>',
      'write the catalog flows as one Baseline of this name (a ring per patch group) instead of a Flow, Deployment and Package each',
    );
  addCommonOptions(cmd);
  cmd.action(async (opts: ExportOptions) => {
    const dir = resolve(io.cwd, opts.out);
    if (opts.asBaseline !== undefined && !BASELINE_NAME.test(opts.asBaseline))
      throw new UsageError(
        `--as-baseline "${opts.asBaseline}" is not a manifest name: lowercase letters, digits, \`-\` and \`.\`, starting and ending with a letter or digit, at most 128 characters`,
      );
    // Checked before anything is read, so a refusal costs nothing and writes nothing.
    await checkTargetDir(dir, opts.force);
    // validate and plan resolve `content:` against the repository root (the nearest folder with .git
    // or .packsyncignore, found the same way), which is not --out when --out lies inside a repository.
    const root = await repositoryRoot(dir);
    const outInRoot = relative(root, dir).split(sep).join('/');
    const rt = await buildRuntime(opts, io, [], { existingState: true });
    try {
      const inventory = await rt.state.read();
      const empty = { root: io.cwd, packages: [], flows: [], deployments: [], tenantUploads: [] };
      const snap = await readLiveState(rt.api, empty, inventory, {
        allFlowDetails: true,
        catalogNames: true,
        allTenantUploads: true,
        packageDetails: true,
      });
      const objects = exportObjects({ live: snap.live, details: snap.packageDetails ?? new Map(), inventory, outInRoot });
      const fold = opts.asBaseline === undefined ? undefined : foldIntoBaseline(objects, opts.asBaseline);
      const out = fold
        ? exportedFiles(fold.objects, [{ name: 'baseline.yaml', manifests: fold.baseline ? [fold.baseline] : [] }])
        : exportedFiles(objects);
      // Nothing to export creates nothing: not even the directory.
      if (Object.keys(out.files).length > 0) await mkdir(dir, { recursive: true });
      const written: string[] = [];
      for (const [name, text] of Object.entries(out.files)) written.push(await writeNewFile(dir, name, text));
      for (const c of out.contentDirs) await mkdir(join(root, c), { recursive: true });
      for (const line of summary(out, dir, rt.state.location, snap.reads)) io.stdout(line);
      if (fold) for (const line of foldSummary(fold, opts.asBaseline!)) io.stdout(line);
      const intents = Object.keys(inventory.intents).length;
      if (intents > 0) {
        // An intent is a create whose result an interrupted apply never recorded: the object it made
        // is packsync's, but only the next plan finds it, so this export may have written it again.
        io.stderr(
          `Warning: the state has ${intents} unresolved create(s) from an interrupted apply (${Object.keys(inventory.intents).join(', ')}); run packsync plan or apply on the managed repository first, or the objects they created appear in this export as unowned.`,
        );
      }
      if (written.length > 0) io.stdout(`Wrote ${written.join(', ')}.`);
      if (out.contentDirs.length > 0) {
        io.stdout(
          `${out.contentDirs.length} custom package(s) need their files: put them in ${out.contentDirs.map((c) => shownPath(io.cwd, join(root, c))).join(', ')} (the service cannot return the original content).`,
        );
      }
      if (Object.keys(out.files).length > 0) {
        io.stdout(await nextStep({ out, dir, root, inventory, shown: (abs) => shownPath(io.cwd, abs) }));
      }
    } finally {
      await rt.close();
    }
  });
}

/** `state` is where the inventory was read: the state directory, or the remote state's URL (no credentials). */
function summary(out: ExportedFiles, dir: string, state: string, reads: number): string[] {
  const c = out.counts;
  return [
    `Exported ${c.packages} packages, ${c.flows} flows, ${c.deployments} deployments and ${c.tenantUploads} tenant uploads to ${dir} ` +
      `(${reads} API reads); ${out.owned} already owned by packsync (state ${state}) and ${out.skipped.length} others skipped.`,
    ...byReason(
      out.skipped.map((s) => ({ reason: `${s.kind}: ${s.reason}`, label: `${s.label} (${s.id})` })),
      (n, reason) => `skipped ${n} ${reason}`,
    ),
  ];
}

function foldSummary(fold: BaselineFold, name: string): string[] {
  const f = fold.folded;
  const lines =
    f.flows === 0
      ? [`No catalog flow could be written as Baseline ${name}; every object is written as its own manifest.`]
      : [
          `Baseline ${name} (baseline.yaml): ${f.apps} apps × ${f.rings} rings → ${f.flows} flows, their deployments and ${f.packages} packages.`,
        ];
  lines.push(...byReason(fold.kept, (n, reason) => `kept ${n} flow(s) as plain manifests: ${reason}`));
  return lines;
}

/** One line per reason: what `head` says, then at most SKIPPED_SHOWN of the labels and the count of the rest. */
function byReason(items: readonly { reason: string; label: string }[], head: (count: number, reason: string) => string): string[] {
  const grouped = new Map<string, string[]>();
  for (const i of items) {
    const labels = grouped.get(i.reason);
    if (labels) labels.push(i.label);
    else grouped.set(i.reason, [i.label]);
  }
  return [...grouped].map(([reason, labels]) => {
    const more = labels.length > SKIPPED_SHOWN ? `, and ${labels.length - SKIPPED_SHOWN} more` : '';
    return `  ${head(labels.length, reason)}: ${labels.slice(0, SKIPPED_SHOWN).join(', ')}${more}`;
  });
}
