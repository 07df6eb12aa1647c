import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import { writeAtomic } from '../state/durable-file.js';
import { planPass } from '../engine/reconcile.js';
import { formatPlanJson, formatPlanMarkdown, formatPlanText, formatProblemsMarkdown } from '../plan/format.js';
import { gitCommitOf } from './git-commit.js';
import { planExitCode } from '../plan/verdict.js';
import { addCommonOptions, buildRuntime, positiveInt, useColor } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { addPlanFlags, planOptionsFrom } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';
import { problemLines } from './print-problems.js';
import { SAVED_PLAN_FORMAT } from './saved-plan.js';

interface PlanCommandOptions extends CommonOptions, PlanFlags {
  output: 'text' | 'json' | 'markdown';
  detailedExitcode?: boolean;
  out?: string;
}

export function registerPlanCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('plan')
    .description('show what apply would change, without changing anything')
    .argument('[path]', 'manifest directory or file', '.')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--detailed-exitcode', 'exit 0 when there is nothing to do, 2 when there are changes or reported drift, 1 on any error')
    .option('--out <file>', 'save the plan so `packsync apply FILE` executes exactly it');
  addPlanFlags(cmd);
  addCommonOptions(cmd);
  cmd.action(async (path: string, opts: PlanCommandOptions) => {
    const rt = await buildRuntime(opts, io);
    try {
      const out = await planPass({
        path: resolve(io.cwd, path),
        api: rt.api,
        stateDir: rt.stateDir,
        state: rt.state,
        planOptions: planOptionsFrom(opts),
        readConcurrency: positiveInt(opts.readConcurrency ?? '8', '--read-concurrency', 1),
      });
      if (out.kind === 'invalid') {
        // A PR bot posting the JSON or markdown gets the problems, never an empty document.
        if (opts.output === 'json') io.stdout(JSON.stringify({ valid: false, problems: out.problems }, null, 2));
        else if (opts.output === 'markdown') io.stdout(formatProblemsMarkdown(out.problems));
        io.stderr(problemLines(out.problems));
        io.setExitCode(1);
        return;
      }
      const p = out.plan;
      if (opts.output === 'json') io.stdout(formatPlanJson(p));
      else if (opts.output === 'markdown') io.stdout(formatPlanMarkdown(p, { commit: await gitCommitOf(resolve(io.cwd, path)) }));
      else io.stdout(formatPlanText(p, { color: useColor(opts, io) }));
      if (opts.out) {
        const saved = { format: SAVED_PLAN_FORMAT, path: resolve(io.cwd, path), plan: p, desired: out.desired };
        await writeAtomic(resolve(io.cwd, opts.out), JSON.stringify(saved));
        if (opts.output === 'text') io.stdout(`Saved the plan to ${opts.out}; run \`packsync apply ${opts.out}\` to execute exactly it.`);
      }
      const code = planExitCode(p, opts.detailedExitcode === true);
      if (code !== 0) io.setExitCode(code);
    } finally {
      await rt.close();
    }
  });
}
