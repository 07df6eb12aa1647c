/**
 * `packsync report [PATH] [--from DATE] [--to DATE] [--tenant T] [--format html|markdown|json|pdf] [--out F]`
 * (docs/reports.md, docs/reports.md): what was patched per tenant in a period, from the state's history,
 * the live deployments, wave live data, the catalog's release times and each tenant's radar.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { stat, writeFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { readReport } from '../export/report-read.js';
import type { Report } from '../export/report-model.js';
import { exceptionFacts, expiredAt } from '../plan/baselines.js';
import type { ExceptionFacts } from '../plan/types.js';
import { renderReportHtml } from '../export/report-html.js';
import { renderReportMarkdown } from '../export/report-markdown.js';
import { loadManifests } from '../manifests/load.js';
import type { DesiredModel } from '../manifests/model.js';
import { addCommonOptions, buildRuntime } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { problemLines } from './print-problems.js';
import { reportPeriod } from './report-dates.js';

type Format = 'html' | 'markdown' | 'json' | 'pdf';
const BY_EXTENSION: Record<string, Format> = { '.html': 'html', '.htm': 'html', '.md': 'markdown', '.json': 'json', '.pdf': 'pdf' };

interface ReportOptions extends CommonOptions {
  from?: string;
  to?: string;
  tenant?: string;
  format?: Format;
  out?: string;
}

export function registerReportCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('report [path]')
    .description(
      'per tenant and period: what was rolled out (release, start, waves, completion, latency), installs, gate verdicts and holds, drift, unmanaged radar apps',
    )
    .option('--from <date>', 'start of the period: a day (UTC) or an ISO timestamp (default: 30 days before --to)')
    .option('--to <date>', 'end of the period, a day included whole (default: now, the service clock)')
    .option('--tenant <tenant>', 'only this tenant (id, default domain or display name)')
    .addOption(
      new Option(
        '--format <format>',
        'html (one printable page), markdown, json or pdf (a local Chromium prints it); default from --out, else markdown',
      ).choices(['html', 'markdown', 'json', 'pdf']),
    )
    .option('--out <file>', 'write the report to this file (required for pdf) instead of standard output');
  addCommonOptions(cmd);
  cmd.action(async (path: string | undefined, opts: ReportOptions) => {
    const period = reportPeriod(opts.from, opts.to);
    const format = opts.format ?? (opts.out ? (BY_EXTENSION[extname(opts.out).toLowerCase()] ?? 'html') : 'markdown');
    if (format === 'pdf' && !opts.out) throw new UsageError('--format pdf needs --out FILE (a PDF is not written to a terminal)');
    // Before any read: a report that cannot be written is not worth its API calls.
    if (opts.out) await checkOutDir(resolve(io.cwd, opts.out), opts.out);
    const git = path ? await gitFacts(path, io) : { apps: [], exceptions: [] };
    if (git === null) return;
    const coveredNames = git.apps;
    const rt = await buildRuntime(opts, io);
    let report: Report;
    try {
      const inventory = await rt.state.read();
      report = await readReport({ api: rt.api, inventory, period, tenant: opts.tenant, coveredNames, now: new Date() });
      if (git.exceptions.length > 0)
        report.exceptions = git.exceptions.map((e) => ({
          ...e,
          state: expiredAt(e, new Date(report.period.to)) ? 'expired' : 'in force',
        }));
    } finally {
      await rt.close();
    }
    for (const m of report.missingTenants)
      io.stderr(`Warning: radar of tenant ${m.tenant} could not be read (${m.error}); the report says so`);
    for (const m of report.missingFlows)
      io.stderr(`Warning: flow ${m.flow} could not be read (${m.error}); its rollouts are reported with status Unknown`);
    for (const m of report.missingReads) io.stderr(`Warning: ${m.what} could not be read (${m.error}); the report says so`);
    const body = await render(report, format, io);
    if (opts.out) {
      await writeFile(resolve(io.cwd, opts.out), body).catch((e: unknown) => {
        throw new UsageError(`--out ${opts.out}: cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      });
      io.stderr(`Wrote ${opts.out} (${format}${report.empty ? ', no data in the period' : ''}).`);
    } else io.stdout(body.toString().trimEnd());
  });
}

async function render(r: Report, format: Format, io: CliIo): Promise<string | Buffer> {
  switch (format) {
    case 'json':
      return `${JSON.stringify(r, null, 2)}\n`;
    case 'markdown':
      return renderReportMarkdown(r);
    case 'html':
      return renderReportHtml(r);
    case 'pdf': {
      const { printPdf } = await import('./report-pdf.js');
      return printPdf(renderReportHtml(r), io.env);
    }
  }
}

/**
 * What the report takes from git: the catalog app names its packages and flows name (radar does not
 * list them as unmanaged) and the Baselines' exceptions. Null: invalid (printed).
 */
async function gitFacts(path: string, io: CliIo): Promise<{ apps: string[]; exceptions: ExceptionFacts[] } | null> {
  const loaded = await loadManifests(resolve(io.cwd, path));
  if (!loaded.desired || loaded.problems.some((p) => p.severity === 'error')) {
    io.stderr(problemLines(loaded.problems, 'plan').replace('nothing was planned.', 'no report was made.'));
    io.setExitCode(1);
    return null;
  }
  const d = loaded.desired;
  const exceptions = (d.baselines ?? []).flatMap((b) => b.exceptions.map((e) => exceptionFacts(b, e)));
  return { apps: gitAppNames(d), exceptions };
}

function gitAppNames(d: DesiredModel): string[] {
  return [
    ...d.packages.flatMap((p) => (p.spec.catalog ? [p.spec.catalog.app] : [])),
    ...d.flows.flatMap((f) => (f.spec.app ? [f.spec.app] : [])),
  ];
}

/** `--out FILE` whose folder is missing or not a folder: a usage error naming the flag (not a raw ENOENT after the reads). */
async function checkOutDir(file: string, given: string): Promise<void> {
  const dir = dirname(file);
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new UsageError(`--out ${given}: the folder ${dir} does not exist`);
}
