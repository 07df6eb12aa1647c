import type { Command } from 'commander';
import { Option } from 'commander';
import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { loadRepository } from '../manifests/load.js';
import type { LoadResult } from '../manifests/load.js';
import type { Problem } from '../manifests/model.js';
import { addOutputOptions } from './common.js';
import type { CliIo } from './io.js';
import { shownPath } from './paths.js';
import { problemLines } from './print-problems.js';

interface ValidateOptions {
  output: 'text' | 'json' | 'github';
}

/**
 * `packsync validate [PATH...]`: exit 0 when valid, 1 when any error; needs no API access. The
 * given files and folders are reported; references resolve against their whole repository.
 */
export function registerValidateCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('validate')
    .description('check the manifests (YAML syntax, JSON Schema, references, content) without calling the API')
    .argument(
      '[paths...]',
      'manifest files and directories; references resolve against their repository root (the nearest folder with .git or .packsyncignore)',
      ['.'],
    )
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json', 'github']).default('text'));
  addOutputOptions(cmd, { colour: false }).action(async (paths: string[], opts: ValidateOptions) => {
    // Paths relative to the working directory, in problems and in the messages that name another
    // file alike, so editors and terminals can open FILE:LINE:COL.
    const loaded = await loadRepository(
      paths.map((p) => resolve(io.cwd, p)),
      { display: (abs) => shownPath(io.cwd, abs) },
    );
    const { problems, files } = loaded;
    const valid = !problems.some((p) => p.severity === 'error');
    if (opts.output === 'json') {
      io.stdout(JSON.stringify({ valid, problems, files, documents: loaded.documents }, null, 2));
    } else if (opts.output === 'github') {
      // GitHub Actions workflow commands: each problem becomes an annotation on the pull request.
      const inRepo = repoRelative();
      for (const p of problems) io.stdout(githubAnnotation({ ...p, file: (await inRepo(resolve(io.cwd, p.file))) ?? p.file }));
      if (valid) io.stdout(summary(loaded));
    } else if (!valid) {
      io.stderr(problemLines(problems, 'validate'));
    } else {
      if (problems.length > 0) io.stderr(problems.map((p) => `${p.file}:${p.line}:${p.column}: warning: ${p.message}`).join('\n'));
      io.stdout(summary(loaded));
    }
    if (!valid) io.setExitCode(1);
  });
}

/**
 * GitHub resolves an annotation's file against the repository root, not the step's working
 * directory (`working-directory:`, a checkout into a sub-folder): names relative to the git work
 * tree holding the file ('/'-separated), else to the working directory as the other output shows.
 */
function repoRelative(): (abs: string) => Promise<string | null> {
  const roots = new Map<string, Promise<string | null>>();
  const gitRoot = (dir: string): Promise<string | null> => {
    let found = roots.get(dir);
    if (!found) {
      found = stat(join(dir, '.git')).then(
        () => dir,
        () => (dirname(dir) === dir ? null : gitRoot(dirname(dir))),
      );
      roots.set(dir, found);
    }
    return found;
  };
  return async (abs) => {
    const root = await gitRoot(dirname(abs));
    return root === null ? null : relative(root, abs).split(sep).join('/');
  };
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function githubAnnotation(p: Problem): string {
  const level = p.severity === 'error' ? 'error' : 'warning';
  return `::${level} file=${escapeProperty(p.file)},line=${p.line},col=${p.column},title=${escapeProperty(`packsync ${p.rule}`)}::${escapeData(p.message)}`;
}

function summary(l: LoadResult): string {
  const d = l.desired;
  const n = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
  const kinds = d
    ? `${n(d.packages.length, 'package', 'packages')}, ${n(d.flows.length, 'flow', 'flows')}, ${n(d.deployments.length, 'deployment', 'deployments')}, ${n(d.tenantUploads.length, 'tenant upload', 'tenant uploads')}`
    : '';
  // Baselines are counted apart: the kinds above include what they expand into.
  const baselines = d?.baselines?.length ? `, ${n(d.baselines.length, 'baseline', 'baselines')}` : '';
  return `${n(l.files.length, 'file', 'files')}, ${n(l.documents, 'document', 'documents')} valid (${kinds}${baselines})`;
}
