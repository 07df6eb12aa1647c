import type { Command } from 'commander';
import { Option } from 'commander';
import { resolve } from 'node:path';
import { applyPlan } from '../apply/executor.js';
import type { ApplyResult } from '../apply/executor.js';
import { InventoryStore } from '../apply/inventory-store.js';
import { reconcile } from '../engine/reconcile.js';
import { readLiveState } from '../live/snapshot.js';
import { formatPlanText } from '../plan/format.js';
import { hashValue } from '../plan/hash.js';
import type { Plan } from '../plan/types.js';
import { addCommonOptions, buildRuntime, positiveInt } from './common.js';
import type { CommonOptions, Runtime } from './common.js';
import type { CliIo } from './io.js';
import { addPlanFlags, planOptionsFrom } from './plan-options.js';
import type { PlanFlags } from './plan-options.js';
import { problemLines } from './print-problems.js';
import { createProgressRenderer } from './progress.js';
import { readSavedPlan } from './saved-plan.js';
import type { SavedPlan } from './saved-plan.js';

interface ApplyCommandOptions extends CommonOptions, PlanFlags {
  output: 'text' | 'json';
  concurrency: string;
  waitTimeout: string;
}

export function registerApplyCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('apply')
    .description('change the service until it matches the manifests (or execute a saved plan)')
    .argument('[path]', 'manifest directory or file, or a plan saved with `plan --out`', '.')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--concurrency <n>', 'most plan actions in flight at once', '4')
    .option('--wait-timeout <seconds>', 'longest wait for package processing or an upload task', '900');
  addPlanFlags(cmd);
  addCommonOptions(cmd);
  cmd.action(async (path: string, opts: ApplyCommandOptions) => {
    const target = resolve(io.cwd, path);
    const saved = await readSavedPlan(target);
    const concurrency = positiveInt(opts.concurrency, '--concurrency', 1);
    const waitTimeoutMs = positiveInt(opts.waitTimeout, '--wait-timeout', 1) * 1000;
    const rt = await buildRuntime(opts, io);
    const text = opts.output === 'text';
    const onEvent = text ? createProgressRenderer(io.stdout, io.isTTY, (s) => process.stdout.write(s)) : undefined;
    const applyOptions = { concurrency, wait: { timeoutMs: waitTimeoutMs }, ...(onEvent ? { onEvent } : {}) };
    try {
      let plan: Plan;
      let result: ApplyResult | undefined;
      if (saved) {
        ({ plan, result } = await applySaved(saved, rt, applyOptions, io));
        if (!result) return;
      } else {
        const out = await reconcile({
          path: target,
          api: rt.api,
          stateDir: rt.stateDir,
          planOptions: planOptionsFrom(opts),
          apply: true,
          applyOptions,
        });
        if (out.kind === 'invalid') {
          io.stderr(problemLines(out.problems));
          io.setExitCode(1);
          return;
        }
        plan = out.plan;
        result = out.result;
        if (text) io.stdout(formatPlanText(plan, { color: io.isTTY }));
      }
      if (opts.output === 'json') io.stdout(JSON.stringify({ plan, result }, null, 2));
      else if (result) io.stdout(resultText(result, plan));
      if (plan.errors.length > 0 || !result || result.failed > 0) io.setExitCode(1);
    } finally {
      await rt.close();
    }
  });
}

async function applySaved(
  saved: SavedPlan,
  rt: Runtime,
  applyOptions: Parameters<typeof applyPlan>[3],
  io: CliIo,
): Promise<{ plan: Plan; result?: ApplyResult }> {
  const store = await InventoryStore.open(rt.stateDir);
  const snap = await readLiveState(rt.api, saved.desired, store.inventory);
  const live = hashValue(snap.live);
  const inventory = hashValue(store.inventory);
  if (live !== saved.plan.digests.live || inventory !== saved.plan.digests.inventory) {
    const what = [live !== saved.plan.digests.live ? 'the live state' : '', inventory !== saved.plan.digests.inventory ? 'the inventory' : '']
      .filter(Boolean)
      .join(' and ');
    io.stderr(`Error: stale plan: ${what} changed since the plan was made; run \`packsync plan\` again.`);
    io.setExitCode(1);
    return { plan: saved.plan };
  }
  io.stdout(formatPlanText(saved.plan, { color: io.isTTY }));
  return { plan: saved.plan, result: await applyPlan(saved.plan, rt.api, store, applyOptions) };
}

export function resultText(r: ApplyResult, plan: Plan): string {
  const c = r.counts;
  const lines = [
    '',
    `Apply ${r.failed > 0 ? 'finished with failures' : 'complete'}: ${c.created} created, ${c.configured} configured, ${c.deleted} deleted, ${c.unchanged} unchanged, ${c.skipped} skipped, ${c.failed} failed (${r.writes} writes, ${plan.reads ?? 0} reads).`,
  ];
  for (const o of r.objects) {
    if (o.outcome === 'failed') lines.push(`  ✗ ${o.key}: ${o.error?.code ?? 'FAILED'}: ${o.error?.message ?? ''}`);
    else if (o.outcome === 'skipped') lines.push(`  - ${o.key}: skipped: ${o.reasons.join('; ')}`);
  }
  return lines.join('\n');
}
