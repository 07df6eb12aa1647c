/**
 * `packsync apply`: plan first, show it, ask for approval (a terminal prompt, or `--auto-approve`),
 * then execute exactly the plan that was shown. A saved plan (`plan --out`) is already approved and
 * is refused when stale. Exit codes follow docs/reconcile.md.
 */
import { setMaxListeners } from 'node:events';
import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import type { ApplyOptions, ApplyResult } from '../apply/executor.js';
import type { ApplyEvent } from '../apply/events.js';
import { applyPlanned, applySavedPlan, planPass } from '../engine/reconcile.js';
import { formatPlanText } from '../plan/render/format.js';
import type { Plan } from '../plan/types.js';
import { planVerdict } from '../plan/gates/verdict.js';
import type { PlanVerdict } from '../plan/gates/verdict.js';
import { approve } from './approval.js';
import { addCommonOptions, buildRuntime, useColor } from './common.js';
import { intFlag } from './flag-values.js';
import type { CommonOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';
import { addPlanFlags, planOptionsFrom, readConcurrencyOf } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';
import { manifestRoot, showFile, shownPath, shownProblems } from './paths.js';
import { problemLines } from './print-problems.js';
import { createProgressRenderer } from './progress.js';
import { readSavedPlan } from './saved-plan.js';
import { addBreakGlassFlags, breakGlassFrom } from './break-glass.js';
import type { BreakGlassFlags } from './break-glass.js';
import { addPolicyFlags, enforceApprovals, notifyBreakGlass, policyFrom } from './apply-policy.js';
import type { PolicyFlags } from './apply-policy.js';
import { windowLines } from '../plan/windows/window-format.js';
import { DEFAULT_ACTION_CONCURRENCY } from '../apply/defaults.js';
import { withErrorDocument } from './error-document.js';

interface ApplyCommandOptions extends CommonOptions, PlanFlags, BreakGlassFlags, PolicyFlags {
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
    .option('--concurrency <n>', 'most plan actions in flight at once (1-256)', String(DEFAULT_ACTION_CONCURRENCY))
    .option('--wait-timeout <seconds>', 'longest wait for package processing or an upload task (1-86400)', '900');
  addPlanFlags(cmd);
  addBreakGlassFlags(cmd, true);
  addPolicyFlags(cmd, true);
  addCommonOptions(cmd);
  cmd.action((path: string, opts: ApplyCommandOptions, self: Command) =>
    withErrorDocument(io, opts.output, 'packsync apply', (shown) => runApply(shown, path, opts, self)),
  );
}

async function runApply(io: CliIo, path: string, opts: ApplyCommandOptions, self: Command): Promise<void> {
  const target = resolve(io.cwd, path);
  const saved = await readSavedPlan(target, shownPath(io.cwd, target));
  if (saved) refusePlanFlags(self);
  const concurrency = intFlag(opts.concurrency, '--concurrency');
  const readConcurrency = readConcurrencyOf(opts);
  const waitTimeoutMs = intFlag(opts.waitTimeout, '--wait-timeout') * 1000;
  // Rollout policy flags are checked before the state is locked or the service is read.
  const glass = await breakGlassFrom(opts, io.cwd);
  const policy = await policyFrom(opts, io);
  const rt = await buildRuntime(opts, io, [], { lockState: true });
  const text = opts.output === 'text';
  // No colour (--no-color, NO_COLOR, TERM=dumb) means no cursor control either: plain progress lines and prompt.
  const plain = !useColor(opts, io);
  const { hard, onEvent, release } = progressAndInterrupt(io, text, plain);
  const applyOptions: ApplyOptions = { concurrency, wait: { timeoutMs: waitTimeoutMs }, onEvent, signal: hard.signal };
  try {
    let plan: Plan;
    let verdict: PlanVerdict;
    let result: ApplyResult | undefined;
    if (saved) {
      plan = saved.plan;
      verdict = planVerdict(plan);
      if (text) io.stdout(formatPlanText(plan, { color: useColor(opts, io), show: showFile(io.cwd, saved.desired.root) }));
      result = await applySavedPlan(saved, rt.api, rt.state, applyOptions, readConcurrency);
    } else {
      const planned = await planPass({
        path: target,
        api: rt.api,
        stateDir: rt.stateDir,
        state: rt.state,
        planOptions: { ...planOptionsFrom(opts), ...(glass ? { ignoreWindows: glass } : {}) },
        readConcurrency,
      });
      if (planned.kind === 'invalid') {
        const problems = shownProblems(planned.problems, showFile(io.cwd, await manifestRoot(target)));
        // A CI step parsing apply's JSON gets the problems, never an empty document (as plan).
        if (!text) io.stdout(JSON.stringify({ valid: false, problems }, null, 2));
        io.stderr(problemLines(problems));
        io.setExitCode(1);
        return;
      }
      plan = planned.plan;
      if (text) io.stdout(formatPlanText(plan, { color: useColor(opts, io), show: showFile(io.cwd, planned.desired.root) }));
      if (plan.errors.length > 0) {
        if (!text) io.stdout(JSON.stringify({ plan }, null, 2));
        io.setExitCode(1);
        return;
      }
      verdict = planVerdict(plan);
      await enforceApprovals(policy, plan, opts, io, await manifestRoot(target));
      const approval = verdict.changes ? await approve(plan, io, opts.autoApprove === true, plain) : 'approved';
      if (approval !== 'approved' || hard.signal.aborted) {
        if (!text) io.stdout(JSON.stringify({ plan }, null, 2));
        io.setExitCode(approval === 'interrupted' || hard.signal.aborted ? 130 : 1);
        return;
      }
      result = await applyPlanned(planned, rt.api, applyOptions);
      if (result) await notifyBreakGlass(plan, opts, io);
    }
    if (opts.output === 'json') io.stdout(JSON.stringify({ plan, result }, null, 2));
    else if (result && !hard.signal.aborted) io.stdout(resultText(result, plan, verdict));
    if (hard.signal.aborted) return;
    if (!result || result.failed > 0 || verdict.failing.length > 0) io.setExitCode(1);
  } finally {
    release?.();
    await rt.close();
  }
}

/**
 * What an apply shows while it runs (progress on a terminal, plain lines otherwise) and what Ctrl-C
 * does: cancel what is in flight (intents make that crash-safe), say what it was, exit 130.
 */
function progressAndInterrupt(
  io: CliIo,
  text: boolean,
  plain: boolean,
): { hard: AbortController; onEvent: (e: ApplyEvent) => void; release: (() => void) | undefined } {
  const hard = new AbortController();
  // One signal for every action in flight (up to --concurrency, each with its requests): not a leak.
  setMaxListeners(0, hard.signal);
  const inFlight = new Map<string, string>();
  const render = text ? createProgressRenderer(io.stdout, io.isTTY && !plain, (s) => process.stdout.write(s)) : undefined;
  const onEvent = (e: ApplyEvent): void => {
    if (e.type === 'action-start') inFlight.set(e.actionId, `${e.key}: ${e.description}`);
    else if (e.type === 'action-done' || e.type === 'action-failed') inFlight.delete(e.actionId);
    // After Ctrl-C the cancelled actions would render as failures; the interrupt line says it all.
    if (!hard.signal.aborted) render?.(e);
  };
  const release = io.onInterrupt?.(() => {
    const what = [...inFlight.values()];
    io.stderr(`Interrupted${what.length > 0 ? ` while ${what.join('; ')}` : ''}; the next apply resumes it.`);
    hard.abort();
    io.setExitCode(130);
  });
  return { hard, onEvent, release };
}

/**
 * The flags that shape a plan were fixed when a saved plan was made; `apply FILE` executes exactly
 * that plan, so a flag given now would be silently ignored: refused instead. `--auto-approve` is
 * accepted and changes nothing (a saved plan needs no approval), because CI scripts pass it to
 * every apply.
 */
const PLAN_SHAPING = ['prune', 'pruneAll', 'adopt', 'allowReplace', 'allowShrink', 'drift', 'ignoreWindows', 'policy', 'target'] as const;

function refusePlanFlags(cmd: Command): void {
  const given = PLAN_SHAPING.filter((k) => cmd.getOptionValueSource(k) === 'cli');
  if (given.length === 0) return;
  const flags = given.map((k) => cmd.options.find((o) => o.attributeName() === k)?.long ?? k);
  const one = given.length === 1;
  throw new UsageError(
    `${flags.join(', ')} cannot change a saved plan: what it does was fixed when the plan was made; apply it without ${one ? 'that flag' : 'those flags'}, or make a new plan with ${one ? 'it' : 'them'} (\`packsync plan PATH … --out FILE\`)`,
  );
}

export function resultText(r: ApplyResult, plan: Plan, verdict: PlanVerdict = planVerdict(plan)): string {
  const c = r.counts;
  const failing = verdict.failing;
  const trouble = r.failed > 0 || failing.length > 0;
  // Reported drift is not a skipped change: it is told as the plan tells it (docs/reconcile.md).
  const drift = new Set(plan.objects.filter((o) => o.change === 'drift').map((o) => o.key));
  const drifted = r.objects.filter((o) => o.outcome === 'skipped' && drift.has(o.key)).length;
  const driftText = drifted > 0 ? `, ${drifted} drifted (reported, not healed)` : '';
  const lines = [
    '',
    `Apply ${trouble ? 'finished with failures' : 'complete'}: ${c.created} created, ${c.configured} configured, ${c.deleted} deleted, ${c.unchanged} unchanged, ${c.skipped - drifted} skipped${driftText}, ${c.failed} failed (${r.writes} writes, ${(plan.reads ?? 0) + r.reads} reads).`,
  ];
  for (const o of r.objects) {
    if (o.outcome === 'failed') lines.push(`  ✗ ${o.key}: ${o.error?.code ?? 'FAILED'}: ${o.error?.message ?? ''}`);
    else if (o.outcome === 'skipped' && drift.has(o.key))
      lines.push(`  ! ${o.key}: drifted (reported, not healed): ${o.reasons.join('; ')}`);
    else if (o.outcome === 'skipped') lines.push(`  - ${o.key}: skipped: ${o.reasons.join('; ')}`);
  }
  // Waiting for a change window is not an error (docs/policy.md): say what waits and until when.
  const windows = windowLines(plan);
  if (windows.length > 0) lines.push('Change windows:', ...windows.map((l) => `  ${l}`));
  return lines.join('\n');
}
