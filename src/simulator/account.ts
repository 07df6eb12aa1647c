/**
 * One account's state and its state machines. Transitions are driven by the virtual clock and
 * evaluated lazily (`settle`) before every request, so the simulator needs no timers and a
 * clock jump is seen at once. Only objects with a pending transition are visited.
 */
import { DueQueue } from './due-queue.js';
import type {
  DeploymentStatus,
  UploadFileInfoViewModel,
  V1DeploymentViewModel,
  V1FlowViewModel,
  V1PackageDetailsViewModel,
  V1TaskViewModel,
  V1WaveViewModel,
} from '../api/wire/index.js';
import { randomUUID } from 'node:crypto';
import { dotnetTime } from './clock.js';
import type { Fixtures } from './fixtures.js';
import type { OutcomeEpoch } from './wave-reports.js';
import { emptyReleases } from './release-state.js';
import type { ReleaseState } from './release-state.js';

/** Virtual seconds each background step takes. Chosen: short enough for demos, long enough to poll. */
export const DURATIONS = {
  importQueued: 2,
  importProcessing: 30,
  customProcessing: 45,
  contentUpdate: 60,
  tenantUpload: 40,
} as const;

export interface FileProgress {
  /** Bytes received contiguously from offset 0. */
  received: number;
  /** Next chunk number expected. */
  chunks: number;
  /** Offset and size of the last accepted chunk, so a retried chunk is accepted as a duplicate. */
  last: { offset: number; size: number; chunk: number } | null;
}

export interface PackageRec extends V1PackageDetailsViewModel {
  createdMs: number;
  /** Virtual time the current processing step ends. */
  dueMs: number | null;
  uploads: Record<string, FileProgress>;
  /** Set at finalize when the listed files do not match the bytes received: processing ends in Error. */
  failure?: string | null;
}

export interface FlowRec extends V1FlowViewModel {
  waves: V1WaveViewModel[];
}

export interface DeploymentRec extends V1DeploymentViewModel {
  waveStartedMs: number | null;
  contentDueMs: number | null;
  refreshedAt: string | null;
  /**
   * Running intervals `[from, to | null]`: devices report only while the deployment runs, so a
   * stopped deployment's counts freeze. Optional so that state saved before wave data still loads.
   */
  runs?: [number, number | null][];
  /** Virtual time each wave (by index - 1) became current. */
  waveEnteredMs?: number[];
  /** Indexes (1-based) of the waves left by `skip-wave`: their tenants show `Skipped`. */
  skippedWaves?: number[];
}

export interface TaskRec extends V1TaskViewModel {
  dueMs: number;
  /** Why the task will end in Error (e.g. no admin consent), or null. */
  failure?: string | null;
}

export interface AccountData {
  packages: PackageRec[];
  flows: FlowRec[];
  deployments: DeploymentRec[];
  tasks: TaskRec[];
  /** `PUT /_sim/outcomes` history (absent in state saved before outcomes existed). */
  outcomes?: OutcomeEpoch[];
  /** Catalog releases published in this account (absent in state saved before releases existed). */
  releases?: ReleaseState;
}

export class Account {
  readonly packages = new Map<string, PackageRec>();
  readonly flows = new Map<string, FlowRec>();
  readonly deployments = new Map<string, DeploymentRec>();
  readonly tasks = new Map<string, TaskRec>();
  private readonly activePackages = new Set<PackageRec>();
  private readonly activeDeployments = new Set<DeploymentRec>();
  private readonly activeTasks = new Set<TaskRec>();
  /** Outcome rule sets with the virtual time each took effect, oldest first (docs/api-model.md). */
  outcomes: OutcomeEpoch[] = [];
  /** Catalog releases and the flows' pending reactions (docs/api-model.md, "Releases"). */
  releases: ReleaseState = emptyReleases();
  /** Bumped on every change; persistence writes only when it moved. */
  version = 0;
  /**
   * The earliest virtual time anything active changes by itself, as of the last settle: `settle`
   * before it, with no change since but to the `dirty` deployments, settles only those. Every request settles the account first,
   * and walking 15,000 running deployments per request made the simulator, not the client, the
   * bottleneck of large benchmarks (docs/performance.md, "fleet-cli").
   */
  private nextDueMs = -Infinity;
  /** A change `settle` cannot see the extent of (a flow's waves, a package, a task): walk everything next time. */
  private rescan = true;
  /**
   * Deployments changed since the last settle (added, started, moved a wave, stopped): only these
   * are settled again when nothing else changed. Walking every running deployment on every
   * add-deployment made a 15,000-deployment converge slow down as it went (docs/performance.md).
   */
  private readonly dirty = new Set<DeploymentRec>();
  /** When each active deployment next changes by itself: `settle` takes only those due. */
  private readonly deploymentsDue = new DueQueue<DeploymentRec>();
  /** Deployments `settle` has looked at, ever: the regression test of the walk above counts them. */
  settleVisits = 0;
  /** Deployments by flow id: a flow's details are read per request, and a scan of all was O(fleet). */
  private readonly byFlow = new Map<string, Set<DeploymentRec>>();

  constructor(
    readonly name: string,
    readonly fixtures: Fixtures,
  ) {}

  load(data: AccountData): void {
    for (const p of data.packages) this.addPackage(p);
    for (const f of data.flows) this.flows.set(f.id, f);
    for (const d of data.deployments) this.addDeployment(d);
    for (const t of data.tasks) this.addTask(t);
    this.outcomes = data.outcomes ?? [];
    this.releases = data.releases ?? emptyReleases();
  }

  dump(): AccountData {
    return {
      packages: [...this.packages.values()],
      flows: [...this.flows.values()],
      deployments: [...this.deployments.values()],
      tasks: [...this.tasks.values()],
      outcomes: this.outcomes,
      releases: this.releases,
    };
  }

  setOutcomes(epoch: OutcomeEpoch): void {
    this.outcomes.push(epoch);
    this.touch();
  }

  touch(): void {
    this.version++;
    this.rescan = true;
  }

  /** One deployment changed: persisted like any change, settled on its own (see `dirty`). */
  private changed(d: DeploymentRec): void {
    this.version++;
    this.dirty.add(d);
  }

  /**
   * A new package has no deployments yet, so nothing but the package itself can change by it: it
   * is scheduled among the packages, and the deployments are not walked. (It used to mark a
   * rescan, so each of a patch-tuesday apply's 500 imports made the next request walk all 12,000
   * running deployments: ~60 ms a request where 22 is the floor; docs/performance.md, patch-tuesday.)
   */
  addPackage(p: PackageRec): void {
    this.packages.set(p.id, p);
    this.version++;
    if (p.dueMs === null) return;
    this.activePackages.add(p);
    this.nextDueMs = Math.min(this.nextDueMs, p.dueMs);
  }

  /** A new flow has no deployments yet: as with a new package, nothing is walked for it. */
  addFlow(f: FlowRec): void {
    this.flows.set(f.id, f);
    this.version++;
  }

  schedulePackage(p: PackageRec, dueMs: number): void {
    p.dueMs = dueMs;
    this.activePackages.add(p);
    this.touch();
  }

  addDeployment(d: DeploymentRec): void {
    this.deployments.set(d.id, d);
    let mine = this.byFlow.get(d.flowId);
    if (!mine) this.byFlow.set(d.flowId, (mine = new Set()));
    mine.add(d);
    this.watchDeployment(d);
  }

  watchDeployment(d: DeploymentRec): void {
    if (d.status === 'Running' || d.contentUpdateStatus === 'Running') this.activeDeployments.add(d);
    this.changed(d);
  }

  addTask(t: TaskRec): void {
    this.tasks.set(t.id, t);
    if (t.state === 'Running' || t.state === 'Pending') this.activeTasks.add(t);
    this.touch();
  }

  /**
   * A deployment changes by itself from its own times and its flow's waves only, so removing one
   * changes no other: it is unscheduled, and the deployments are not walked. (It used to mark a
   * rescan, so each delete of a prune, or each rollout a release superseded, made the next request
   * walk every running deployment, as imports did; docs/performance.md, patch-tuesday.)
   */
  removeDeployment(d: DeploymentRec): void {
    this.deployments.delete(d.id);
    this.byFlow.get(d.flowId)?.delete(d);
    this.activeDeployments.delete(d);
    this.deploymentsDue.set(d, Infinity);
    this.dirty.delete(d);
    this.version++;
  }

  /** In the order they were added (as a scan of `deployments` gave them). */
  deploymentsOf(flowId: string): DeploymentRec[] {
    return [...(this.byFlow.get(flowId) ?? [])];
  }

  /** Applies every transition due at virtual time `now`. */
  settle(now: number): void {
    if (this.rescan) {
      this.settleAll(now);
      return;
    }
    this.settleDirty(now);
    if (now >= this.nextDueMs) this.settleDue(now);
  }

  /** The deployments changed since the last settle, each settled and given its next due time. */
  private settleDirty(now: number): void {
    if (this.dirty.size === 0) return;
    const changed = [...this.dirty];
    for (const d of changed) this.nextDueMs = Math.min(this.nextDueMs, this.settleScheduled(d, now));
    // Settling marks a deployment changed again (a wave entered): it is scheduled already.
    this.dirty.clear();
  }

  /** Settles one active deployment and schedules its next change; returns when that is. */
  private settleScheduled(d: DeploymentRec, now: number): number {
    if (!this.activeDeployments.has(d)) return Infinity;
    const next = this.settleDeployment(d, now);
    if (d.status !== 'Running' && d.contentUpdateStatus !== 'Running') {
      this.activeDeployments.delete(d);
      this.deploymentsDue.set(d, Infinity);
      return Infinity;
    }
    this.deploymentsDue.set(d, next);
    return next;
  }

  /** Something is due: the deployments whose time came (from the queue), then packages and tasks. */
  private settleDue(now: number): void {
    for (const d of this.deploymentsDue.takeDue(now)) this.settleScheduled(d, now);
    this.dirty.clear();
    this.nextDueMs = Math.min(this.deploymentsDue.peek(), this.settleOthers(now));
  }

  /** After a change of unknown reach: every active deployment settled and scheduled again. */
  private settleAll(now: number): void {
    this.deploymentsDue.clear();
    for (const d of [...this.activeDeployments]) this.settleScheduled(d, now);
    this.rescan = false;
    this.dirty.clear();
    this.nextDueMs = Math.min(this.deploymentsDue.peek(), this.settleOthers(now));
  }

  /** Packages and upload tasks (a few at a time): walked whenever something is due. Returns the next due time among them. */
  private settleOthers(now: number): number {
    let next = Infinity;
    for (const p of this.activePackages) {
      if (p.dueMs === null) continue;
      if (p.dueMs > now) {
        next = Math.min(next, p.dueMs);
        continue;
      }
      if (p.state === 'Pending') {
        // A catalog import: queued, then running.
        p.state = 'Running';
        p.dueMs += DURATIONS.importProcessing * 1000;
      }
      if ((p.state === 'Running' || p.state === 'Processing') && p.dueMs <= now) {
        if (p.failure) {
          p.state = 'Error';
          p.errorDetails = p.failure;
          p.issues = [{ code: 'ContentMismatch', message: p.failure, severity: 'Error' }];
        } else {
          p.state = 'Completed';
          p.downloadAvailable = true;
          p.outputFormats = ['IntuneWin', 'PSADT', 'SourceFiles'];
        }
        p.dueMs = null;
        this.activePackages.delete(p);
      }
      if (p.dueMs !== null) next = Math.min(next, p.dueMs);
      this.version++;
    }
    for (const t of this.activeTasks) {
      if (t.dueMs > now) {
        next = Math.min(next, t.dueMs);
        continue;
      }
      t.state = t.failure ? 'Error' : 'Completed';
      t.errorDetails = t.failure ?? null;
      t.progress = t.failure ? t.progress : 100;
      t.completedAt = dotnetTime(t.dueMs);
      this.activeTasks.delete(t);
      this.version++;
    }
    return next;
  }

  /** Returns when this deployment next changes by itself (Infinity: not by itself). */
  private settleDeployment(d: DeploymentRec, now: number): number {
    this.settleVisits++;
    if (d.contentUpdateStatus === 'Running' && d.contentDueMs !== null && d.contentDueMs <= now) {
      d.contentUpdateStatus = 'Completed';
      d.contentUpdatedAt = dotnetTime(d.contentDueMs);
      d.contentDueMs = null;
      this.changed(d);
    }
    const content = d.contentUpdateStatus === 'Running' && d.contentDueMs !== null ? d.contentDueMs : Infinity;
    if (d.status !== 'Running' || d.waveStartedMs === null) return content;
    const flow = this.flows.get(d.flowId);
    const waves = flow?.waves ?? [];
    while (d.status === 'Running' && d.waveStartedMs !== null) {
      const wave = waves[d.currentWave - 1];
      const ends = d.waveStartedMs + (wave?.delayHours ?? 24) * 3_600_000;
      if (ends > now) return Math.min(content, ends);
      this.enterWave(d, d.currentWave + 1, ends, waves);
    }
    return content;
  }

  /** Moves a running deployment to wave `n` (1-based) at `at`, completing it past the last wave. */
  enterWave(d: DeploymentRec, n: number, at: number, waves: V1WaveViewModel[]): void {
    if (n > d.waveCount) {
      this.setStatus(d, 'Completed', at);
      return;
    }
    d.currentWave = n;
    d.currentWaveId = waves[n - 1]?.id ?? null;
    d.waveStartedMs = at;
    (d.waveEnteredMs ??= [])[n - 1] ??= at;
    this.changed(d);
  }

  setStatus(d: DeploymentRec, status: DeploymentStatus, at: number): void {
    const runs = (d.runs ??= []);
    const open = runs[runs.length - 1];
    if (status === 'Running' && (!open || open[1] !== null)) runs.push([at, null]);
    // Devices keep reporting once every wave is reached (Completed); only a halt freezes them.
    if ((status === 'Stopped' || status === 'Failed' || status === 'NotStarted') && open && open[1] === null) open[1] = at;
    d.status = status;
    if (status === 'Running') {
      d.startedAt ??= dotnetTime(at);
      d.stoppedAt = null;
      d.waveStartedMs = at;
    } else {
      d.waveStartedMs = null;
    }
    if (status === 'Stopped') d.stoppedAt = dotnetTime(at);
    if (status === 'Completed') d.completedAt = dotnetTime(at);
    this.watchDeployment(d);
  }
}

export type { UploadFileInfoViewModel };

/** A deployment as add-deployment creates it, not started: for the route and for a flow that starts new versions itself. */
export function newDeployment(flow: FlowRec, packageId: string, version: string, at: number): DeploymentRec {
  return {
    id: randomUUID(),
    flowId: flow.id,
    packageId,
    version,
    created: dotnetTime(at),
    status: 'NotStarted',
    currentWave: 0,
    currentWaveId: null,
    waveCount: flow.waves.length,
    startedAt: null,
    stoppedAt: null,
    completedAt: null,
    contentUpdateStatus: 'None',
    contentUpdatedAt: null,
    waveStartedMs: null,
    contentDueMs: null,
    refreshedAt: null,
  };
}
