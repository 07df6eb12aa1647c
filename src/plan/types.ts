/**
 * The plan: a versioned value. `packsync plan` prints it and `packsync apply` executes it; nothing
 * else decides what to write. Load-bearing: `PLAN_VERSION` changes when the JSON shape does.
 */
import type { V1FlowCreateViewModel, V1PackageCreateViewModel } from '../api/wire/index.js';
import type { ImportQuery } from '../api/wire/index.js';
import type { GateHold, GateLogEntry, InventoryEntry, PromotionRecord } from '../state/inventory-types.js';
import type { GateReport } from './gates/promotion.js';
import type { WindowState } from './windows/window-types.js';
import type { Kind } from '../manifests/model.js';
import type { ErrorCode } from '../util/errors.js';
import { isWaitOp, OP } from './ops.js';

export const PLAN_VERSION = 1;

/** What the plan does to one object (one manifest key, or one owned object no longer in git). */
export type Change =
  | 'create'
  | 'update'
  | 'replace'
  | 'delete'
  | 'move'
  | 'adopt'
  | 'forget'
  | 'none'
  | 'waiting'
  | 'skipped'
  | 'conflict'
  | 'requires-replacement'
  | 'drift'
  | 'orphan'
  | 'error';

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface ObjectPlan {
  key: string;
  kind: Kind;
  name: string;
  change: Change;
  /** Stable, human reasons (no timestamps or request ids). */
  reasons: string[];
  fields: FieldChange[];
  /** Ids of the actions that carry this object's change. */
  actions: string[];
  error?: { code: ErrorCode; message: string };
  /** Manifest position, when the object comes from a manifest. */
  source?: { file: string; line: number; column: number };
  /** A rename detected this pass: the state key this object was known under (docs/reconcile.md). */
  movedFrom?: string;
  /**
   * Live deployments a replacement destroys (deleted with the old flow, or a deployment deleted to
   * be added again), named by their state key: counted under "to delete" (docs/reconcile.md).
   */
  destroys?: { key: string; id: string; status: string; wave: string }[];
  /** Set when live state was changed outside packsync: healed this pass, only reported, or held by the agent's heal backoff. */
  drift?: DriftHandling;
  /**
   * An owned object that exists live while its manifest left git (not a superseded one): out of
   * sync until pruned ("requires pruning", docs/reconcile.md).
   */
  requiresPruning?: true;
  /** Blast radius lines of the object's moving actions (`reaches 3 tenants (wave 1 of 3), 412 devices`). */
  reach?: string[];
  /** On a flow that starts new versions itself: the deployments the service started (plan/kinds/service-driven.ts). */
  serviceStarted?: ServiceStarted[];
  /** `spec.suspend`: skipped by the manifest's own choice, counted as suspended, not blocked. */
  suspended?: true;
}

/** A deployment the service started in an owned flow: listed, never pruned, never a conflict or an orphan. */
export interface ServiceStarted {
  id: string;
  version: string;
  status: string;
  wave: string;
}

export type DriftHandling = 'healed' | 'reported' | 'held';

/** A live id known now, or the id packsync will have recorded for a manifest key when this runs. */
export type IdRef = { id: string } | { key: string };

interface ActionBase {
  /** Unique within the plan. */
  id: string;
  key: string;
  dependsOn: string[];
  /** One line for humans, e.g. `import 7-Zip 24.08`. */
  description: string;
  /** Blast radius of an action that moves a rollout (docs/policy.md): tenants and devices it reaches. */
  tenants?: number;
  devices?: number;
}

/** Ownership bookkeeping written after a successful create (or adopt). */
export interface RecordSpec {
  specHash: string;
  spec: unknown;
  annotations?: Record<string, string>;
  /** The manifest file the object was applied from (prune scope, docs/reconcile.md); set by the context. */
  file?: string;
}

export type PlanAction =
  | (ActionBase & {
      op: typeof OP.importPackage;
      appId: string;
      query: ImportQuery;
      record: RecordSpec;
      match: { appId: string; version: string; scope: string };
      knownIds: string[];
    })
  | (ActionBase & {
      op: typeof OP.createPackage;
      body: V1PackageCreateViewModel;
      record: RecordSpec & { contentDigest?: string };
      match: { name: string; version: string };
      knownIds: string[];
      /** Upload follows in its own action; without content the package is finalized empty. */
      hasContent: boolean;
    })
  | (ActionBase & {
      op: typeof OP.uploadContent;
      packageKey: string;
      dir: string;
      digest: string;
      /** Each file as planned; a saved plan is refused as stale when one differs on disk. */
      files?: { path: string; size: number; sha256: string }[];
    })
  | (ActionBase & { op: typeof OP.waitPackage; packageKey: string })
  | (ActionBase & {
      op: typeof OP.createFlow;
      body: V1FlowCreateViewModel;
      /** For package-based flows: the package whose live id goes into `packageId`. */
      packageRef?: IdRef;
      record: RecordSpec;
      match: { name: string };
      knownIds: string[];
    })
  | (ActionBase & {
      op: typeof OP.deleteFlow;
      flowId: string;
      /** State entries of deployments on this flow, forgotten once it is deleted (if they still name that deployment). */
      forget?: { key: string; id: string }[];
    })
  | (ActionBase & {
      op: typeof OP.addDeployment;
      flowRef: IdRef;
      packageRef: IdRef;
      version?: string;
      startNow: boolean;
      record: RecordSpec & { appliedState: string; contentRevision?: number; windows?: InventoryEntry['windows'] };
    })
  | (ActionBase & { op: typeof OP.start | typeof OP.stop | typeof OP.updateContent; deploymentRef: IdRef })
  /**
   * skip-wave is not idempotent, so the applier re-reads the deployment first and skips only while
   * its current wave is below `untilWave`: a retried or repeated pass can never over-skip.
   */
  | (ActionBase & { op: typeof OP.skipWave; deploymentRef: IdRef; untilWave: number })
  | (ActionBase & { op: typeof OP.deleteDeployment; deploymentId: string })
  | (ActionBase & {
      op: typeof OP.tenantUpload;
      tenantId: string;
      packageRef: IdRef;
      uploadMsixAsWin32: boolean;
      record: RecordSpec;
    })
  | (ActionBase & { op: typeof OP.waitUpload; taskId: string })
  /**
   * State-only write of a deployment's promotion gate (soak clock, hold, log), merged into its
   * entry after the object's other actions. `quiet`: bookkeeping only (the soak clock of a wave
   * seen for the first time): not a change, not shown, run by every apply and agent pass.
   */
  | (ActionBase & {
      op: typeof OP.gate;
      set: GateStateChange;
      quiet: boolean;
      /** A service-started deployment's gate (`Flow/NAME@VERSION`): kept on its flow's entry, by deployment id. */
      service?: { flow: string; deploymentId: string; version: string };
    })
  /** Inventory-only writes: adopt an object, refresh recorded fields, or forget it. */
  | (ActionBase & { op: typeof OP.record; entry: InventoryEntry; resolvesIntent: boolean })
  | (ActionBase & { op: typeof OP.forget });

export interface GateStateChange {
  promotion?: PromotionRecord;
  /** null releases a hold. */
  hold?: GateHold | null;
  appliedState?: string;
  log?: GateLogEntry;
  /** The manifest's annotations, recorded when they changed (null: none any more). */
  annotations?: Record<string, string> | null;
  /** When the object's manifest left git and an apply kept it (null: git describes it again). */
  leftGit?: { at: string } | null;
}

/** Writes to the service or the state that a plan's actions make (waits and gate bookkeeping are not changes). */
export function isChangeAction(a: PlanAction): boolean {
  return !isWaitOp(a.op) && !(a.op === OP.gate && a.quiet);
}

export interface PlanSummary {
  create: number;
  change: number;
  delete: number;
  unchanged: number;
  waiting: number;
  /** Skipped (but not suspended), in conflict, needing a replacement, or in error. */
  blocked: number;
  /** Skipped because the manifest says `suspend: true` (a choice, not a blockage). Absent in older saved plans. */
  suspended?: number;
  /** Live drift only reported (`--drift report`, or held by the agent's heal backoff), not healed. Added later: absent in older saved plans. */
  drifted: number;
  /** Owned live objects whose manifest left git, without --prune (`requiresPruning`). Absent in older saved plans. */
  orphaned?: number;
  /** Objects in error (also counted under `blocked`). Absent in older saved plans. */
  errors?: number;
  /** Blast radius of the whole plan (docs/policy.md): distinct tenants and their devices that moving actions reach. */
  tenants?: number;
  devices?: number;
}

export interface Plan {
  version: typeof PLAN_VERSION;
  /** Git commit or directory digest the desired set came from. */
  revision: string | null;
  /** Who signed that revision, when the source was verified (`run --verify-mode`). */
  signer?: string;
  generatedAt: string;
  options: PlanOptions;
  objects: ObjectPlan[];
  actions: PlanAction[];
  summary: PlanSummary;
  /** Problems that stop the whole plan (e.g. prune of everything without --prune-all). */
  errors: string[];
  /**
   * Digests of the inputs, so a saved plan can be refused when they moved. Made only where a plan
   * is saved or printed as JSON (`PlanPassInput.digests`): at 15,000 deployments they were a fifth
   * of a no-op's garbage (docs/performance.md, fleet-cli).
   */
  digests?: { live: string; inventory: string };
  /** API calls made to read the live state (filled by the caller, not the planner). */
  reads?: number;
  /** One per running deployment with `promotion`: its gate verdict and figures (docs/manifests.md). */
  gates?: GateReport[];
  /** Deployments under change windows (docs/policy.md): open or closed, and what waits until when. */
  windows?: WindowState[];
  /**
   * The revision's reach as if every change window were open (plan/reach-if-open.ts): set only when a
   * window holds moves back. The two-person rule judges this, not `summary.tenants`: a revision is
   * applied whole or not at all, so the moves a window holds count too. `unknown`: moves whose
   * reach cannot be told (a flow the revision creates).
   */
  reachIfOpen?: { tenants: number; unknown: number };
  /** Header lines about each Baseline: its summary and expired exceptions (plan/baselines.ts). */
  baselines?: string[];
  /** The `--target` keys this plan was narrowed to; every other change waits for a later plan. */
  targets?: string[];
  /** Baseline exceptions past their `expires` date: the baseline applies to their app again (plan/baselines.ts). */
  expiredExceptions?: ExpiredException[];
}

/** One Baseline exception as plan, status and report name it. */
export interface ExceptionFacts {
  baseline: string;
  app: string;
  ring?: string;
  action: 'omit' | 'override';
  owner: string;
  reason: string;
  expires?: string;
  /** Where the exception is written: FILE:LINE:COL. */
  at: string;
}

export interface ExpiredException extends ExceptionFacts {
  expires: string;
}

export interface PlanOptions {
  prune: boolean;
  pruneAll: boolean;
  adopt: boolean;
  allowReplace: boolean;
  drift: 'heal' | 'report';
  /** A Baseline change may remove more than its maxRemoved flows or deployments (plan/baselines.ts). */
  allowShrink?: boolean;
  /** Keys whose drift is only reported this pass although `drift` is heal (the agent's per-object heal backoff). */
  driftHold?: string[];
  /** Break glass (`--ignore-windows --reason T`): forward moves go through closed windows, recorded with who and why. */
  ignoreWindows?: { actor: string; reason: string };
  /** `--target Kind/NAME`: only these objects and what their actions depend on (plan/target.ts). */
  targets?: string[];
}

/**
 * Where the applied manifests sit, so each owned object remembers the file it was applied from and
 * prune stays inside the applied path (docs/reconcile.md). Inside a git work tree files are relative to its
 * root (stable across checkouts); elsewhere they are absolute.
 */
export interface PlanScope {
  /** The desired set's root in file-key space (`''` for a git root, else a relative or absolute dir). */
  rootKey: string;
  /** The applied path in file-key space: everything at or under it is in prune scope. */
  path: string;
  /** The applied path is one file: its manifests all have this file key. */
  single: boolean;
  /** The applied path is the whole tree (a git root, or a plain directory): state entries from before files were recorded are in scope. */
  whole: boolean;
  /**
   * File keys of owned objects whose manifest file still exists on disk but was not read (ignored,
   * hidden, a content folder): never a reason to prune (docs/manifests.md "Files").
   */
  leftOut?: ReadonlySet<string>;
}

export const DEFAULT_PLAN_OPTIONS: PlanOptions = {
  prune: false,
  pruneAll: false,
  adopt: false,
  allowReplace: false,
  drift: 'heal',
};

/** Changes that write to the service (or the inventory) when applied. */
export const WRITING_CHANGES: ReadonlySet<Change> = new Set<Change>(['create', 'update', 'replace', 'delete', 'move', 'adopt', 'forget']);
