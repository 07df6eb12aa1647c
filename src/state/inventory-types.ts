/**
 * The inventory: what packsync owns. Load-bearing format (version 1): changing a field name here
 * breaks every existing state directory, so only add optional fields.
 */
import type { Kind } from '../manifests/model.js';
import type { History } from './history.js';

export const INVENTORY_VERSION = 1;

/** Where a custom package is in its create → upload → finalize life. */
export type PackagePhase = 'created' | 'uploaded';

export interface InventoryEntry {
  kind: Kind;
  name: string;
  /** Live id (package, flow or deployment id; for TenantUpload the upload task id). */
  id: string;
  /** Hash of the normalised spec that produced the live object. */
  specHash: string;
  /** The spec as applied, kept to name the fields that changed (no secrets live in specs). */
  spec: unknown;
  /** Git revision (or directory digest) that last wrote this entry. */
  revision: string | null;
  /** Manifest file it was last applied from (relative to the git root, or absolute): prune scope. */
  file?: string;
  /** Set on an object a newer live object replaced (a package version edited in place, its deployment); kept while it exists live so a revert reuses it and --prune can delete it. */
  superseded?: { at: string; by?: string };
  /**
   * Set on a flow being replaced (`apply --allow-replace`, docs/reconcile.md) from before the new flow's
   * create until the old flow's delete lands: a replacement in progress, not a version kept for a
   * revert. An apply interrupted in between leaves it here, and the next apply with --allow-replace
   * finishes the replacement (deployments onto the new flow, then this flow deleted) exactly once.
   */
  /** `abandoned`: a flow an interrupted replacement made that git no longer wants; the next plan deletes it. */
  replacing?: { at: string; abandoned?: true };
  /** Annotations at apply time: prune protection must survive the manifest's removal. */
  annotations?: Record<string, string>;
  phase?: PackagePhase;
  contentDigest?: string;
  /**
   * The files of the uploaded content (path, size, sha256), when at most 2,000: the next plan names the
   * files a content change adds, removes or changes, with their sizes (docs/reconcile.md).
   */
  contentFiles?: { path: string; size: number; sha256: string }[];
  /** Deployments: the live flow and package ids and the last state/revision packsync applied. */
  flowId?: string;
  packageId?: string;
  appliedState?: string;
  contentRevision?: number;
  /** TenantUpload: the tenant and package the task uploaded. */
  tenantId?: string;
  /** Deployments with `promotion`: the gate clock of the wave being soaked (docs/manifests.md). */
  promotion?: PromotionRecord;
  /** Set while a failed promotion gate holds the deployment: packsync neither starts nor promotes it until `packsync resume`. */
  hold?: GateHold;
  /** Deployments: the change windows in force when last applied (its own or its flow's), so `promote` honours them (docs/policy.md). */
  windows?: { timezone: string; allow?: string[]; freeze?: { from: string; to: string; reason?: string }[] };
  /** Gate actions and the promote/resume commands, oldest first, the last 20. */
  gateLog?: GateLogEntry[];
  /**
   * Set by the first apply that found this owned object's manifest gone from git and kept the object
   * (an orphan, no --prune): its removal was applied then, so a Baseline's blast guard counts it in
   * that change only, not in every later one (docs/baselines.md). Cleared when git describes it again.
   */
  leftGit?: { at: string };
  /**
   * A Flow with `promotion`: the gate state of each deployment the service started in it, by live
   * deployment id (no state key owns those deployments; docs/reconcile.md, "Service-driven flows").
   */
  serviceGates?: Record<string, ServiceGate>;
  updatedAt: string;
}

/**
 * The soak clock of one wave of one live deployment. Times are the service's clock (its `Date`
 * header), so local clock skew and a restart of packsync change nothing.
 */
export interface PromotionRecord {
  deploymentId: string;
  /** 1-based wave being soaked. */
  wave: number;
  /** When packsync first saw the wave current, or skipped into it (ISO, service clock). */
  since: string;
  /** Counts per tenant id taken at `packsync resume`: the gate judges only reports after them. */
  baseline?: Record<string, { installed: number; failed: number }>;
}

export interface GateHold {
  at: string;
  deploymentId: string;
  wave: number;
  /** Why, with the figures (stable text, also shown by plan and status). */
  reason: string;
  /** True when the gate called stop (`onFailure: stop`). */
  stopped: boolean;
}

export interface GateLogEntry {
  at: string;
  action: 'skip-wave' | 'stop' | 'hold' | 'promote' | 'resume' | 'ignore-windows';
  /** The wave the action left (skip-wave, promote, ignore-windows: 0 for a start) or judged (stop, hold, resume). */
  wave: number;
  /** The rollout's wave count when a command ran: a promote of the last wave completed it. */
  waveCount?: number;
  by: 'gate' | 'command';
  reason: string;
  /** The queued request a command's entry carried out (`promote`/`resume` while the state was locked). */
  request?: string;
}

/** Recorded before every create call; resolved on the next run by finding the object live. */
/** The gate state of one service-started deployment, kept on its flow's entry. */
export interface ServiceGate {
  version: string;
  promotion?: PromotionRecord;
  hold?: GateHold;
  gateLog?: GateLogEntry[];
}

export interface Intent {
  key: string;
  op: string;
  at: string;
  /** Ids of live objects that already matched the natural key when the intent was written. */
  knownIds: string[];
  /** The natural key used to find the object again (name/version/flow/package...). */
  match: Record<string, string>;
  /** The manifest file of the create (absent in intents written before it was kept): prune scope. */
  file?: string;
}

export interface Inventory {
  version: typeof INVENTORY_VERSION;
  objects: Record<string, InventoryEntry>;
  intents: Record<string, Intent>;
  /** What the evidence report reads (state/history.ts, docs/reports.md#history); absent until the first event. */
  history?: History;
}

export function emptyInventory(): Inventory {
  return { version: INVENTORY_VERSION, objects: {}, intents: {} };
}
