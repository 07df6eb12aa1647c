/**
 * `packsync render [PATH] [--explain] [--ring R] [--app A]`: the manifests the Baselines under PATH
 * expand into, as YAML, without calling the API (docs/baselines.md). With --explain every field
 * carries the FILE:LINE:COL it was written at and the layer that set it (defaults, apps[i],
 * overrides[i], exceptions[i], rings).
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { loadRepository } from '../manifests/load.js';
import type { GeneratedDocument } from '../manifests/generated-document.js';
import type { BaselineSummary } from '../manifests/model.js';
import { appSlug } from '../manifests/kinds/baseline-spec.js';
import type { Segment } from '../manifests/yaml-types.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { shownPath } from './paths.js';
import { addOutputOptions } from './common.js';
import { problemLines } from './print-problems.js';

interface RenderOptions {
  explain?: boolean;
  ring?: string;
  app?: string;
}

export function registerRenderCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('render')
    .description('print the manifests the Baselines expand into (no API calls)')
    .argument('[path]', 'manifest file or directory', '.')
    .option('--explain', 'show after each field the file:line:col and layer it came from')
    .option('--ring <ring>', 'only objects of this ring')
    .option('--app <app>', 'only objects of this app (as written in the baseline, or its name part)');
  // The common output flags, accepted so one set of flags fits every command (it writes no log lines).
  addOutputOptions(cmd, { colour: false }).action(async (path: string, opts: RenderOptions) => {
    const loaded = await loadRepository([resolve(io.cwd, path)], { display: (abs) => shownPath(io.cwd, abs), keepGenerated: true });
    const errors = loaded.problems.filter((p) => p.severity === 'error');
    if (errors.length > 0) {
      io.stderr(problemLines(loaded.problems, 'validate'));
      io.setExitCode(1);
      return;
    }
    const shown = new Set(loaded.files);
    const all = (loaded.generated ?? []).filter((d) => shown.has(d.file));
    if (all.length === 0) {
      io.stderr(`no Baseline under ${path}: nothing to render`);
      return;
    }
    const docs = all.filter((d) => matches(d, opts));
    const omitted = omittedApp(loaded.desired?.baselines ?? [], opts.app);
    if (docs.length === 0 && omitted.length > 0) {
      // An app every ring omits is still an app of the baseline: it renders nothing, and says why.
      io.stderr(`--app "${opts.app}" renders nothing: omitted by the exception(s) at ${omitted.join(', ')}`);
      return;
    }
    checkFilters(all, opts);
    io.stdout(docs.map((d) => renderDocument(d, opts.explain === true)).join('\n'));
  });
}

/** Where the exceptions in force that omit `app` are (FILE:LINE:COL); none without --app. */
function omittedApp(baselines: readonly BaselineSummary[], app: string | undefined): string[] {
  if (app === undefined) return [];
  return baselines
    .flatMap((b) => b.exceptions)
    .filter((e) => e.action === 'omit' && !e.expired && sameApp(e.app, app))
    .map((e) => `${e.source.file}:${e.source.line}:${e.source.column}`);
}

function matches(d: GeneratedDocument, opts: RenderOptions): boolean {
  if (opts.ring !== undefined && !d.about.rings.includes(opts.ring)) return false;
  if (opts.app !== undefined && !ofApp(d, opts.app)) return false;
  return true;
}

const sameApp = (app: string, wanted: string): boolean => app.toLowerCase() === wanted.toLowerCase() || appSlug(app) === wanted;

/** The app as written, its slug, or the entry's own name part (`name: npp`, as the keys carry it). */
const ofApp = (d: GeneratedDocument, wanted: string): boolean => sameApp(d.about.app, wanted) || d.about.name === wanted;

/** A --ring or --app no baseline has is a usage error naming the flag, not an empty output. */
function checkFilters(all: readonly GeneratedDocument[], opts: RenderOptions): void {
  if (opts.ring !== undefined && !all.some((d) => d.about.rings.includes(opts.ring!))) {
    const rings = [...new Set(all.flatMap((d) => d.about.rings))].join(', ');
    throw new UsageError(`--ring "${opts.ring}" is not a ring of these baselines (rings: ${rings})`);
  }
  if (opts.app !== undefined && !all.some((d) => ofApp(d, opts.app!))) {
    const apps = [...new Set(all.map((d) => d.about.app))].join(', ');
    throw new UsageError(`--app "${opts.app}" is not an app of these baselines (apps: ${apps})`);
  }
}

function renderDocument(d: GeneratedDocument, explain: boolean): string {
  const v = d.value as { kind: string; metadata: { name: string } };
  const lines = ['---', `# ${v.kind}/${v.metadata.name}: Baseline "${d.about.by}", app ${d.about.app}, ring ${d.about.rings.join(', ')}`];
  emit({ d, explain, out: lines }, d.value as Record<string, unknown>, [], 0);
  return lines.join('\n');
}

function emit(
  to: { d: GeneratedDocument; explain: boolean; out: string[] },
  obj: Record<string, unknown>,
  at: Segment[],
  depth: number,
): void {
  const { d, explain, out } = to;
  const pad = '  '.repeat(depth);
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined) continue;
    const path = [...at, key];
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && !leafObject(d, path)) {
      out.push(`${pad}${key}:`);
      emit(to, value as Record<string, unknown>, path, depth + 1);
      continue;
    }
    const text = typeof value === 'object' ? JSON.stringify(value) : scalar(value);
    out.push(`${pad}${key}: ${text}${explain && path[0] !== 'apiVersion' && path[0] !== 'kind' ? `  # ${explainOf(d, path)}` : ''}`);
  }
}

/** A setting whose value is an object (promotion) is shown whole, with its origin. */
function leafObject(d: GeneratedDocument, path: Segment[]): boolean {
  return d.origins.has(path.join('.')) && path[0] === 'spec' && path.length === 2 && path[1] !== 'catalog';
}

function explainOf(d: GeneratedDocument, path: Segment[]): string {
  const o = d.originOf(path);
  const p = d.locate(path, 'value');
  return `${d.file}:${p.line}:${p.column} (${o.layer})`;
}

// Plain words need no quoting; anything YAML could read as another type (or that holds syntax) goes
// through the YAML library. The fast path keeps render of a 3,000-flow baseline near its load time.
const PLAIN = /^[A-Za-z][A-Za-z0-9 ._()+-]*[A-Za-z0-9)+]$/;
const SPECIAL = /^(true|false|yes|no|on|off|null|y|n)$/i;

function scalar(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string' && PLAIN.test(v) && !SPECIAL.test(v)) return v;
  return stringify(v).trimEnd();
}
