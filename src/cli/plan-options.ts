import type { Command } from 'commander';
import { Option } from 'commander';
import type { PlanOptions } from '../plan/types.js';
import { intFlag } from './flag-values.js';
import { UsageError } from './io.js';
import { targetProblem } from '../plan/target.js';

export interface PlanFlags {
  prune?: boolean;
  pruneAll?: boolean;
  adopt?: boolean;
  allowReplace?: boolean;
  allowShrink?: boolean;
  drift?: 'heal' | 'report';
  readConcurrency?: string;
  target?: string[];
}

/**
 * The flags that shape a plan, shared by `plan`, `apply` and `run` so their help texts agree. Only
 * the drift default differs (docs/manifests.md): `plan`/`apply` heal what the plan shows (a person approves
 * it); the unattended agent reports and heals only when asked.
 */
export function addPlanFlags(
  cmd: Command,
  defaults: { drift: 'heal' | 'report'; target?: boolean } = { drift: 'heal', target: true },
): Command {
  if (defaults.target)
    cmd.option(
      '--target <Kind/NAME>',
      'plan only this object and what it depends on (repeatable; Kind/NAME#ID names one superseded object)',
      (v: string, all: string[] = []) => [...all, v],
    );
  return cmd
    .option('--prune', 'delete owned objects that are no longer in git')
    .option('--prune-all', 'allow --prune to delete everything when the desired set is empty')
    .option('--adopt', 'take over live objects that match a manifest but packsync did not create')
    .option('--allow-replace', 'replace (delete + create) flows and deployments whose fixed fields changed')
    .option('--allow-shrink', 'let a Baseline change remove more than its maxRemoved flows or deployments')
    .addOption(
      new Option('--drift <policy>', 'live changes made outside git: heal (undo them) or report (never act)')
        .choices(['heal', 'report'])
        .default(defaults.drift),
    )
    .option(
      '--read-concurrency <n>',
      'most live-state reads a pass keeps going (1-256; default: twice --api-concurrency; the API client sends at most --api-concurrency at once)',
    );
}

export function planOptionsFrom(f: PlanFlags): PlanOptions {
  return {
    prune: f.prune === true,
    pruneAll: f.pruneAll === true,
    adopt: f.adopt === true,
    allowReplace: f.allowReplace === true,
    ...(f.allowShrink === true ? { allowShrink: true } : {}),
    drift: f.drift ?? 'heal',
    ...(f.target && f.target.length > 0 ? { targets: targetsOf(f.target) } : {}),
  };
}

function targetsOf(values: readonly string[]): string[] {
  for (const v of values) {
    const why = targetProblem(v);
    if (why) throw new UsageError(why);
  }
  return [...new Set(values)];
}

/**
 * Live-state reads a pass keeps going: `--read-concurrency` when given; else undefined, and the
 * reads follow the client's own slots (`readsAtOnce` in live/read-concurrency.ts: twice
 * `--api-concurrency`), the one place that rule is written.
 */
export function readConcurrencyOf(f: { readConcurrency?: string | undefined }): number | undefined {
  return f.readConcurrency === undefined ? undefined : intFlag(f.readConcurrency, '--read-concurrency');
}
