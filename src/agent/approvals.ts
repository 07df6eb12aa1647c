/**
 * The two-person rule (docs/policy.md): a change that reaches more tenants than the policy's
 * `tenantsAbove` is applied only when the commits of its range carry signatures of at least
 * `required` distinct trusted signers. Each commit is checked with the same signature verification
 * as `run --verify-mode` (verify-signature.ts: git proves the key, packsync binds it to the
 * committer), so a second person approves with a signed commit, even an empty one.
 */
import type { RolloutPolicy } from '../manifests/policy-file.js';
import type { Plan } from '../plan/types.js';
import { hasChanges } from '../plan/planner.js';
import { unknownReach } from '../plan/reach.js';
import type { TrustedKeys } from './source/verify-keys.js';
import { runGit, verifyObject } from './source/verify-signature.js';

/** Most commits of one range checked (a range longer than this is judged on its newest commits). */
const MAX_COMMITS = 500;

export interface ApprovalVerdict {
  /** The policy asks for approvals for this plan. */
  needed: boolean;
  ok: boolean;
  required: number;
  /** Distinct trusted signers found in the range, sorted. */
  signers: string[];
  missing: number;
  /** The commits looked at, `A..B` (or one commit). */
  range: string;
  /** Tenants the plan reaches, and the threshold over which approvals are needed. */
  tenants: number;
  tenantsAbove: number;
  /** One stable line for status, events and notifications. */
  message: string;
}

/**
 * The reach the rule judges: the revision's whole, the moves a closed window holds included
 * (`Plan.reachIfOpen`): a revision is applied whole or not at all, so a window must not let part of
 * it through with one person. `unknown`: some move's reach cannot be told.
 */
export function judgedReach(plan: Plan): { tenants: number; unknown: boolean } {
  const open = plan.reachIfOpen;
  return {
    tenants: Math.max(plan.summary.tenants ?? 0, open?.tenants ?? 0),
    unknown: unknownReach(plan) > 0 || (open?.unknown ?? 0) > 0,
  };
}

/** `reaches 4 tenants`, or `reaches an unknown number of tenants`: the one wording of plan, apply and the agent. */
export function reachWords(plan: Plan): string {
  const r = judgedReach(plan);
  return `reaches ${r.unknown ? 'an unknown number of' : r.tenants} tenants`;
}

/** Whether the policy's approvals apply to this plan (it changes something and reaches more than `tenantsAbove` tenants). */
export function approvalsNeeded(policy: RolloutPolicy, plan: Plan): boolean {
  const a = policy.approvals;
  if (a === undefined || !hasChanges(plan)) return false;
  // A move whose reach cannot be told (a new flow's waves are not readable before it exists) is
  // treated as reaching too many: a one-line commit must not pass with one person by being new.
  const r = judgedReach(plan);
  return r.tenants > a.tenantsAbove || r.unknown;
}

/** Distinct trusted signers of the commits in `from..to` (every commit reachable from `to` when `from` is null: its head only). */
export async function signersOf(
  keys: TrustedKeys,
  repoDir: string,
  from: string | null,
  to: string,
  env: NodeJS.ProcessEnv,
): Promise<{ signers: string[]; commits: number; error?: string }> {
  const list = await runGit(
    keys,
    repoDir,
    ['rev-list', `--max-count=${MAX_COMMITS}`, ...(from ? [`${from}..${to}`] : ['-1', to]), '--'],
    env,
  );
  if (list.code !== 0)
    return {
      signers: [],
      commits: 0,
      error: `git rev-list ${from ? `${from}..${to}` : to} failed: ${list.stderr.trim().split('\n')[0] ?? ''}`,
    };
  const commits = list.stdout.split('\n').filter((l) => /^[0-9a-f]{40,64}$/.test(l));
  const signers = new Set<string>();
  for (const c of commits) {
    const v = await verifyObject(keys, repoDir, 'commit', c, env);
    if (v.ok && v.signer) signers.add(v.signer);
  }
  return { signers: [...signers].sort(), commits: commits.length };
}

export function approvalVerdict(
  policy: RolloutPolicy,
  plan: Plan,
  found: { signers: string[]; error?: string },
  range: string,
): ApprovalVerdict {
  const a = policy.approvals ?? { required: 0, tenantsAbove: 0 };
  const needed = approvalsNeeded(policy, plan);
  const tenants = judgedReach(plan).tenants;
  const missing = needed ? Math.max(0, a.required - found.signers.length) : 0;
  const who = found.signers.length > 0 ? found.signers.join(', ') : 'none';
  const base = { needed, required: a.required, signers: found.signers, range, tenants, tenantsAbove: a.tenantsAbove };
  if (!needed)
    return {
      ...base,
      ok: true,
      missing: 0,
      message: `no approvals needed (${reachWords(plan)}, policy asks above ${a.tenantsAbove})`,
    };
  const message =
    missing === 0
      ? `approved by ${who} (${a.required} distinct trusted signer(s) required for changes reaching more than ${a.tenantsAbove} tenants)`
      : `waits for approval: ${reachWords(plan)} (more than ${a.tenantsAbove}), needs ${a.required} distinct trusted signers in ${range}; found ${found.signers.length} (${who}), ${missing} missing${found.error ? ` (${found.error})` : ''}; a second person approves with a signed commit, e.g. \`git commit --allow-empty -S -m Approve\``;
  return { ...base, ok: missing === 0, missing, message };
}
