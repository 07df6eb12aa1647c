import type { Command } from 'commander';
import { Option } from 'commander';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeAtomic } from '../state/durable-file.js';
import { planPass } from '../engine/reconcile.js';
import { formatPlanJson, formatPlanMarkdown, formatPlanText, formatProblemsMarkdown } from '../plan/render/format.js';
import { gitCommitOf } from './git-commit.js';
import { planExitCode, planFails } from '../plan/gates/verdict.js';
import { addCommonOptions, buildRuntime, useColor } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { addPlanFlags, planOptionsFrom, readConcurrencyOf } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';
import { manifestRoot, showFile, shownPlan, shownProblems } from './paths.js';
import { problemLines } from './print-problems.js';
import { SAVED_PLAN_FORMAT } from './saved-plan.js';
import { withErrorDocument } from './error-document.js';
import { addPolicyFlags, policyFrom, tellApprovals } from './apply-policy.js';
import type { PolicyFlags } from './apply-policy.js';

interface PlanCommandOptions extends CommonOptions, PlanFlags, PolicyFlags {
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
    .option(
      '--detailed-exitcode',
      'exit 0 when the service matches git, 2 when there are changes, reported drift or moves a closed window holds, 1 on any error',
    )
    .option('--out <file>', 'save the plan so `packsync apply FILE` executes exactly it');
  addPlanFlags(cmd);
  addPolicyFlags(cmd, false);
  addCommonOptions(cmd);
  cmd.action((path: string, opts: PlanCommandOptions) =>
    withErrorDocument(io, opts.output, 'packsync plan', (shown) => runPlan(shown, path, opts)),
  );
}

async function runPlan(io: CliIo, path: string, opts: PlanCommandOptions): Promise<void> {
  const target = resolve(io.cwd, path);
  const policy = await policyFrom(opts, io);
  const rt = await buildRuntime(opts, io);
  try {
    const out = await planPass({
      path: target,
      api: rt.api,
      stateDir: rt.stateDir,
      state: rt.state,
      planOptions: planOptionsFrom(opts),
      readConcurrency: readConcurrencyOf(opts),
      // A saved plan is refused when its inputs moved; the JSON plan has always shown them too.
      digests: opts.out !== undefined || opts.output === 'json',
    });
    if (out.kind === 'invalid') {
      const problems = shownProblems(out.problems, showFile(io.cwd, await manifestRoot(target)));
      // A PR bot posting the JSON or markdown gets the problems, never an empty document.
      if (opts.output === 'json') io.stdout(JSON.stringify({ valid: false, problems }, null, 2));
      else if (opts.output === 'markdown') io.stdout(formatProblemsMarkdown(problems));
      io.stderr(problemLines(problems, 'plan'));
      if (opts.out) io.stderr(await notSaved(io, opts.out, 'the manifests are not valid'));
      io.setExitCode(1);
      return;
    }
    const p = out.plan;
    const show = showFile(io.cwd, out.desired.root);
    if (opts.output === 'json') io.stdout(formatPlanJson(shownPlan(p, show)));
    else if (opts.output === 'markdown') io.stdout(formatPlanMarkdown(shownPlan(p, show), { commit: await gitCommitOf(target) }));
    else io.stdout(formatPlanText(p, { color: useColor(opts, io), show }));
    if (opts.out) {
      // Like Terraform, a plan that cannot be applied is not saved: `apply FILE` would only fail.
      if (planFails(p)) io.stderr(await notSaved(io, opts.out, 'the plan has errors'));
      else {
        const saved = { format: SAVED_PLAN_FORMAT, path: target, plan: p, desired: out.desired };
        await writeAtomic(resolve(io.cwd, opts.out), JSON.stringify(saved));
        if (opts.output === 'text') io.stdout(`Saved the plan to ${opts.out}; run \`packsync apply ${opts.out}\` to execute exactly it.`);
      }
    }
    await tellApprovals(policy, p, opts, io, await manifestRoot(target));
    const code = planExitCode(p, opts.detailedExitcode === true);
    if (code !== 0) io.setExitCode(code);
  } finally {
    await rt.close();
  }
}

/** Says why `--out FILE` was not written, and that a file already there was left as it was. */
async function notSaved(io: CliIo, file: string, why: string): Promise<string> {
  const existing = await stat(resolve(io.cwd, file)).then(
    () => true,
    () => false,
  );
  return `The plan was not saved to ${file}: ${why}${existing ? ` (the existing ${file} was left unchanged)` : ''}.`;
}
