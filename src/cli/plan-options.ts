import type { Command } from 'commander';
import { Option } from 'commander';
import type { PlanOptions } from '../plan/types.js';

export interface PlanFlags {
  prune?: boolean;
  pruneAll?: boolean;
  adopt?: boolean;
  allowReplace?: boolean;
  drift?: 'heal' | 'report';
}

export function addPlanFlags(cmd: Command): Command {
  return cmd
    .option('--prune', 'delete owned objects that are no longer in git')
    .option('--prune-all', 'allow --prune to delete everything when the desired set is empty')
    .option('--adopt', 'take over live objects that match a manifest but packsync did not create')
    .option('--allow-replace', 'replace (delete + create) flows and deployments whose fixed fields changed')
    .addOption(new Option('--drift <policy>', 'what to do about live changes made outside git').choices(['heal', 'report']).default('heal'));
}

export function planOptionsFrom(f: PlanFlags): PlanOptions {
  return {
    prune: f.prune === true,
    pruneAll: f.pruneAll === true,
    adopt: f.adopt === true,
    allowReplace: f.allowReplace === true,
    drift: f.drift ?? 'heal',
  };
}
