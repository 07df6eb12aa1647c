/**
 * `apply`'s rollout policy (docs/policy.md): the two-person rule checked on `--approvals-range A..B`
 * before anything is applied, and the break-glass notification after a move through a closed
 * window. Kept out of apply-command.ts so the command reads as plan → approve → apply.
 */
import type { Command } from 'commander';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ApprovalVerdict } from '../agent/approvals.js';
import { loadPolicyFile } from '../manifests/policy-file.js';
import type { RolloutPolicy } from '../manifests/policy-file.js';
import type { Plan } from '../plan/types.js';
import { PacksyncError } from '../util/errors.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

export interface PolicyFlags {
  policy?: string;
  approvalsRange?: string;
  trustedKeys?: string;
  notifications?: string;
}

export function addPolicyFlags(cmd: Command, notifications: boolean): Command {
  cmd
    .option('--policy <file>', 'rollout policy file (docs/policy.md): approvals needed for changes that reach many tenants')
    .option('--approvals-range <A..B>', 'with --policy: the commits whose signatures approve this change (e.g. origin/main..HEAD)')
    .option('--trusted-keys <dir>', 'with --approvals-range: allowed_signers and/or *.asc keys of the people who may approve');
  if (!notifications) return cmd;
  return cmd.option('--notifications <file>', 'notifications file (as for run): a break-glass apply (--ignore-windows) is sent to it');
}

/** Reads `--policy`; a file that is not valid is POLICY_INVALID with every problem as FILE:LINE:COL. */
export async function policyFrom(f: PolicyFlags, io: CliIo): Promise<RolloutPolicy | undefined> {
  if (f.policy === undefined) {
    if (f.approvalsRange !== undefined) throw new UsageError('--approvals-range needs --policy FILE (the rule it is checked against)');
    return undefined;
  }
  const loaded = await loadPolicyFile(resolve(io.cwd, f.policy), f.policy);
  if (!loaded.ok)
    throw new PacksyncError('POLICY_INVALID', loaded.problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`).join('\n'));
  return loaded.policy;
}

/** Checks the two-person rule for a plan about to be applied; throws APPROVALS_MISSING (nothing applied). */
export async function enforceApprovals(
  policy: RolloutPolicy | undefined,
  plan: Plan,
  f: PolicyFlags,
  io: CliIo,
  repoDir: string,
): Promise<ApprovalVerdict | undefined> {
  const verdict = await checkApprovals(policy, plan, f, io, repoDir);
  if (verdict === 'no-range')
    throw new PacksyncError(
      'APPROVALS_MISSING',
      `this change ${await reachWordsOf(plan)} and the policy needs ${policy?.approvals?.required ?? 0} distinct trusted signers above ${policy?.approvals?.tenantsAbove ?? 0}: give --approvals-range A..B and --trusted-keys DIR; nothing was applied`,
    );
  if (verdict && !verdict.ok) throw new PacksyncError('APPROVALS_MISSING', `${verdict.message}; nothing was applied`);
  if (verdict) io.stderr(verdict.message);
  return verdict;
}

/** `plan --policy`: says whether the change needs approvals and, with a range, who signed (never fails the plan). */
export async function tellApprovals(
  policy: RolloutPolicy | undefined,
  plan: Plan,
  f: PolicyFlags,
  io: CliIo,
  repoDir: string,
): Promise<void> {
  const verdict = await checkApprovals(policy, plan, f, io, repoDir);
  if (verdict === 'no-range')
    io.stderr(
      `Approvals: this change ${await reachWordsOf(plan)} (more than ${policy?.approvals?.tenantsAbove ?? 0}): apply needs ${policy?.approvals?.required ?? 0} distinct trusted signers (--approvals-range A..B --trusted-keys DIR)`,
    );
  else if (verdict) io.stderr(`Approvals: ${verdict.message}`);
}

/** The agent's wording of a plan's reach (agent/approvals.ts), loaded only with a policy as the rest of it. */
async function reachWordsOf(plan: Plan): Promise<string> {
  return (await import('../agent/approvals.js')).reachWords(plan);
}

/** The verdict on `--approvals-range`; undefined when no approval is needed, 'no-range' when one is and no range was given. */
async function checkApprovals(
  policy: RolloutPolicy | undefined,
  plan: Plan,
  f: PolicyFlags,
  io: CliIo,
  repoDir: string,
): Promise<ApprovalVerdict | 'no-range' | undefined> {
  if (!policy) return undefined;
  // The agent's modules load only when a policy is given (a plain apply starts as fast as before).
  const [{ approvalVerdict, approvalsNeeded, signersOf }, { loadTrustedKeys }] = await Promise.all([
    import('../agent/approvals.js'),
    import('../agent/source/verify-keys.js'),
  ]);
  if (!approvalsNeeded(policy, plan)) return undefined;
  const range = f.approvalsRange;
  if (range === undefined) return 'no-range';
  if (!f.trustedKeys) throw new UsageError('--approvals-range needs --trusted-keys DIR (who may approve)');
  const m = /^([^.\s][^\s]*?)\.\.([^.\s][^\s]*)$/.exec(range);
  if (!m) throw new UsageError(`--approvals-range "${range}" is not a commit range: write A..B, e.g. origin/main..HEAD`);
  const home = await mkdtemp(join(tmpdir(), 'packsync-approvals-'));
  try {
    const keys = await loadTrustedKeys({ dir: resolve(io.cwd, f.trustedKeys), gnupgHome: join(home, 'gnupg'), env: io.env });
    return approvalVerdict(policy, plan, await signersOf(keys, repoDir, m[1]!, m[2]!, io.env), range);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** After an apply that broke glass: one `WindowIgnored` notification per deployment moved through a closed window. */
export async function notifyBreakGlass(plan: Plan, f: PolicyFlags, io: CliIo): Promise<void> {
  const moved = (plan.windows ?? []).filter((w) => w.ignored);
  for (const w of moved)
    io.stderr(
      `Break glass: ${w.key} moved through a closed window (${w.reason ?? ''}) by ${w.ignored?.actor ?? '?'}: ${w.ignored?.reason ?? ''}`,
    );
  if (!f.notifications || moved.length === 0) return;
  const { notifyOnce } = await import('../agent/notify/one-shot.js');
  for (const w of moved) {
    const message = `${w.key} moved forward outside its change window (${w.reason ?? 'closed'}): --ignore-windows by ${w.ignored?.actor ?? '?'}, reason: ${w.ignored?.reason ?? ''}`;
    const lines = await notifyOnce(resolve(io.cwd, f.notifications), {
      reason: 'WindowIgnored',
      object: w.key,
      revision: plan.revision,
      message,
    });
    for (const l of lines) io.stderr(l);
  }
}
