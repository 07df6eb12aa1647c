/**
 * The agent's two-person rule (docs/policy.md): before a pass applies a revision whose plan reaches
 * more tenants than the policy allows with one person, the commits since the last applied revision
 * must carry signatures of enough distinct trusted signers. Until then nothing of the revision is
 * applied; `/status` (`approvals`), the status page and one `ApprovalPending` event (so one
 * notification per revision) say who signed and how many are missing. The last applied revision is
 * kept in the state directory, so a restart does not widen or narrow the range.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { windowHeldKeys } from '../plan/windows/window-types.js';
import type { RolloutPolicy } from '../manifests/policy-file.js';
import type { Plan } from '../plan/types.js';
import type { ReconcileOutput } from '../engine/reconcile.js';
import type { PassOutcome } from './pass-outcome.js';
import { approvalVerdict, approvalsNeeded, signersOf } from './approvals.js';
import type { ApprovalVerdict } from './approvals.js';
import type { StatusTracker } from './http/status.js';
import type { TrustedKeys } from './source/verify-keys.js';

const FILE = 'approvals-applied.json';

export interface ApprovalGateOptions {
  policy: RolloutPolicy;
  keys: TrustedKeys;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  status: StatusTracker;
  /** The source as events name it (`Source/<url>`). */
  sourceObject: string;
}

export class ApprovalGate {
  /** The verdict of the last pass that needed approvals (null: none needed). */
  last: ApprovalVerdict | null = null;
  /** The message of the last pass when it withheld its revision, else null. */
  withheld: string | null = null;

  constructor(private readonly o: ApprovalGateOptions) {}

  /** The engine's `mayApply` for a pass whose manifests (and git repository) are at `repoDir`. */
  mayApply(repoDir: string): (plan: Plan) => Promise<boolean> {
    return (plan) => this.check(plan, repoDir);
  }

  /** True when the plan may be applied; records the verdict in the status either way. */
  async check(plan: Plan, repoDir: string): Promise<boolean> {
    const { o } = this;
    if (!approvalsNeeded(o.policy, plan)) {
      this.last = null;
      o.status.status.approvals = null;
      return true;
    }
    const to = plan.revision;
    const from = await this.lastApplied();
    if (to !== null && from === to) return this.record(alreadyApproved(o.policy, plan, to));
    const range = to === null ? '(no git revision)' : from ? `${from.slice(0, 12)}..${to.slice(0, 12)}` : to.slice(0, 12);
    const found =
      to === null || to.startsWith('sha256:')
        ? { signers: [], error: 'approvals need a git source: a plain directory has no signed commits' }
        : await signersOf(o.keys, repoDir, from, to, o.env);
    const verdict = approvalVerdict(o.policy, plan, found, range);
    if (!verdict.ok) o.status.event({ reason: 'ApprovalPending', object: o.sourceObject, message: verdict.message, revision: to });
    return this.record(verdict);
  }

  private record(verdict: ApprovalVerdict): boolean {
    this.last = verdict;
    this.o.status.status.approvals = verdict;
    return verdict.ok;
  }

  /** After the pass's status was written: a withheld revision is not Ready (the pass's own Ready is overwritten). */
  afterFinish(): void {
    if (this.withheld !== null) this.o.status.set('Ready', 'False', 'ApprovalPending', this.withheld);
  }

  async lastApplied(): Promise<string | null> {
    const text = await readFile(join(this.o.stateDir, FILE), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const r = (JSON.parse(text) as { revision?: unknown }).revision;
      return typeof r === 'string' && /^[0-9a-f]{40,64}$/.test(r) ? r : null;
    } catch {
      return null;
    }
  }

  /** After a pass applied `revision` (approved, or needing no approval): the next range starts there. */
  async applied(revision: string | null): Promise<void> {
    if (revision === null || !/^[0-9a-f]{40,64}$/.test(revision)) return;
    const path = join(this.o.stateDir, FILE);
    await writeFile(`${path}.tmp`, `${JSON.stringify({ revision })}\n`);
    await rename(`${path}.tmp`, path);
  }
}

/**
 * A plan over the revision the agent last applied whole: no commit is new, so nothing is there for
 * a second person to sign. What it changes comes from that revision meeting time or the service (a
 * Baseline exception that expired, a start after \`packsync resume\`, drift healed back to git), and
 * that revision passed the rule when it was applied (regression: the agent waited for ever for
 * signatures over an empty range, "found 0, 2 missing").
 */
function alreadyApproved(policy: RolloutPolicy, plan: Plan, revision: string): ApprovalVerdict {
  const v = approvalVerdict(policy, plan, { signers: [] }, revision.slice(0, 12));
  return {
    ...v,
    ok: true,
    missing: 0,
    message: `no new commits since ${revision.slice(0, 12)}, which was applied under the rule: what changes now (time, a resume, drift healed) needs no new approval`,
  };
}

/**
 * The pass's outcome when the gate withheld its revision: not a failure (no retry backoff; the
 * approving commit triggers the next pass) but not applied either. After a pass that applied its
 * revision whole, the range of the next one starts at its revision. A pass that left moves held by
 * a closed change window did not: those moves are still to come, and when the window opens they
 * are judged with the commits that made them (else the author's own signature fell out of the
 * range and the change needed a third person). Returns the message to show when withheld.
 */
export async function settleApprovals(gate: ApprovalGate | undefined, out: ReconcileOutput, outcome: PassOutcome): Promise<PassOutcome> {
  if (!gate) return outcome;
  gate.withheld = out.kind === 'planned' && out.withheld === true ? (gate.last?.message ?? 'waits for approval') : null;
  if (gate.withheld !== null) return { ...outcome, result: 'Aborted', message: gate.withheld };
  if (out.kind === 'planned' && outcome.result === 'Succeeded' && windowHeldKeys(out.plan).size === 0) await gate.applied(outcome.revision);
  return outcome;
}
