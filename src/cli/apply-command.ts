/**
 * `packsync apply`: plan first, show it, ask for approval (a terminal prompt, or `--auto-approve`),
 * then execute exactly the plan that was shown. A saved plan (`plan --out`) is already approved and
 * is refused when stale. Exit codes follow design §4a.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import type { ApplyOptions, ApplyResult } from '../apply/executor.js';
import type { ApplyEvent } from '../apply/events.js';
import { applyPlanned, applySavedPlan, planPass } from '../engine/reconcile.js';
import { formatPlanText } from '../plan/format.js';
import type { Plan } from '../plan/types.js';
import { planVerdict } from '../plan/verdict.js';
import type { PlanVerdict } from '../plan/verdict.js';
import { approve } from './approval.js';
import { addCommonOptions, buildRuntime, positiveInt, useColor } from './common.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { addPlanFlags, planOptionsFrom } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';
import { problemLines } from './print-problems.js';
import { createProgressRenderer } from './progress.js';
import { readSavedPlan } from './saved-plan.js';

interface ApplyCommandOptions extends CommonOptions, PlanFlags {
  output: 'text' | 'json';
  concurrency: string;
  waitTimeout: string;
  autoApprove?: boolean;
}

export function registerApplyCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('apply')
    .description('show the plan, ask for approval, then change the service until it matches the manifests (or execute a saved plan)')
    .argument('[path]', 'manifest directory or file, or a plan saved with `plan --out`', '.')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--auto-approve', 'apply without asking (needed when standard input is not a terminal)')
    .option('--concurrency <n>', 'most plan actions in flight at once', '4')
    .option('--wait-timeout <seconds>', 'longest wait for package processing or an upload task', '900');
  addPlanFlags(cmd);
  addCommonOptions(cmd);
  cmd.action(async (path: string, opts: ApplyCommandOptions) => {
    const target = resolve(io.cwd, path);
    const saved = await readSavedPlan(target);
    const concurrency = positiveInt(opts.concurrency, '--concurrency', 1);
    const readConcurrency = positiveInt(opts.readConcurrency ?? '8', '--read-concurrency', 1);
    const waitTimeoutMs = positiveInt(opts.waitTimeout, '--wait-timeout', 1) * 1000;
    const rt = await buildRuntime(opts, io, [], { lockState: true });
    const text = opts.output === 'text';
    const hard = new AbortController();
    const inFlight = new Map<string, string>();
    const render = text ? createProgressRenderer(io.stdout, io.isTTY, (s) => process.stdout.write(s)) : undefined;
    const onEvent = (e: ApplyEvent): void => {
      if (e.type === 'action-start') inFlight.set(e.actionId, `${e.key}: ${e.description}`);
      else if (e.type === 'action-done' || e.type === 'action-failed') inFlight.delete(e.actionId);
      // After Ctrl-C the cancelled actions would render as failures; the interrupt line says it all.
      if (!hard.signal.aborted) render?.(e);
    };
    const applyOptions: ApplyOptions = { concurrency, wait: { timeoutMs: waitTimeoutMs }, onEvent, signal: hard.signal };
    // Ctrl-C: cancel what is in flight (intents make that crash-safe), say what it was, exit 130.
    const release = io.onInterrupt?.(() => {
      const what = [...inFlight.values()];
      io.stderr(`Interrupted${what.length > 0 ? ` while ${what.join('; ')}` : ''}; the next apply resumes it.`);
      hard.abort();
      io.setExitCode(130);
    });
    try {
      let plan: Plan;
      let verdict: PlanVerdict;
      let result: ApplyResult | undefined;
      if (saved) {
        plan = saved.plan;
        verdict = planVerdict(plan);
        if (text) io.stdout(formatPlanText(plan, { color: useColor(opts, io) }));
        result = await applySavedPlan(saved, rt.api, rt.state, applyOptions, readConcurrency);
      } else {
        const planned = await planPass({
          path: target,
          api: rt.api,
          stateDir: rt.stateDir,
          state: rt.state,
          planOptions: planOptionsFrom(opts),
          readConcurrency,
        });
        if (planned.kind === 'invalid') {
          io.stderr(problemLines(planned.problems));
          io.setExitCode(1);
          return;
        }
        plan = planned.plan;
        if (text) io.stdout(formatPlanText(plan, { color: useColor(opts, io) }));
        if (plan.errors.length > 0) {
          if (!text) io.stdout(JSON.stringify({ plan }, null, 2));
          io.setExitCode(1);
          return;
        }
        verdict = planVerdict(plan);
        const approval = verdict.changes ? await approve(plan, io, opts.autoApprove === true) : 'approved';
        if (approval !== 'approved' || hard.signal.aborted) {
          if (!text) io.stdout(JSON.stringify({ plan }, null, 2));
          io.setExitCode(approval === 'interrupted' || hard.signal.aborted ? 130 : 1);
          return;
        }
        result = await applyPlanned(planned, rt.api, applyOptions);
      }
      if (opts.output === 'json') io.stdout(JSON.stringify({ plan, result }, null, 2));
      else if (result && !hard.signal.aborted) io.stdout(resultText(result, plan, verdict));
      if (hard.signal.aborted) return;
      if (!result || result.failed > 0 || verdict.failing.length > 0) io.setExitCode(1);
    } finally {
      release?.();
      await rt.close();
    }
  });
}

export function resultText(r: ApplyResult, plan: Plan, verdict: PlanVerdict = planVerdict(plan)): string {
  const c = r.counts;
  const failing = verdict.failing;
  const trouble = r.failed > 0 || failing.length > 0;
  const lines = [
    '',
    `Apply ${trouble ? 'finished with failures' : 'complete'}: ${c.created} created, ${c.configured} configured, ${c.deleted} deleted, ${c.unchanged} unchanged, ${c.skipped} skipped, ${c.failed} failed (${r.writes} writes, ${plan.reads ?? 0} reads).`,
  ];
  for (const o of r.objects) {
    if (o.outcome === 'failed') lines.push(`  ✗ ${o.key}: ${o.error?.code ?? 'FAILED'}: ${o.error?.message ?? ''}`);
    else if (o.outcome === 'skipped') lines.push(`  - ${o.key}: skipped: ${o.reasons.join('; ')}`);
  }
  return lines.join('\n');
}
