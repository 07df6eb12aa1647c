/**
 * The desired model: what the manifests in git ask for, after shape and semantic validation.
 * The planner consumes only this (never raw YAML). `schemas/v1/*.json` is the source of truth
 * for the shape; `test/manifests/schema-types.test.ts` fails when these types and the schemas drift.
 */
import type { DetectionOperatorName, FlowFlagName, SourceType } from '../api/wire/index.js';

export const API_VERSION = 'packsync.dev/v1';
/** Kinds that are planned, applied and kept in the state (descriptors: manifests/kinds/). */
export const OBJECT_KINDS = ['Package', 'Flow', 'Deployment', 'TenantUpload'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];
/** Kinds written in git only, expanded into object kinds before validation (manifests/expand.ts). */
export const AUTHORED_KINDS = ['Baseline'] as const;
export type AuthoredKind = (typeof AUTHORED_KINDS)[number];
/** Every kind a manifest file may hold. */
export const SOURCE_KINDS: readonly SourceKind[] = [...OBJECT_KINDS, ...AUTHORED_KINDS];
export type SourceKind = ObjectKind | AuthoredKind;
/** The kind of an object the planner, the inventory and state keys know: always an object kind. */
export const KINDS = OBJECT_KINDS;
export type Kind = ObjectKind;

/** Where a node came from: 1-based line and column. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface Metadata {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export type Scope = 'machine' | 'user';

export interface CatalogPackageSpec {
  /** Catalog app name or id. */
  app: string;
  version?: string;
  versionId?: string;
  scope?: Scope;
  /** Script template name or id. */
  scriptTemplate?: string;
  /** Version policy for `packsync update` (docs/manifests.md, "Version policy"); never sent to the API. */
  update?: UpdatePolicy;
}

export interface UpdatePolicy {
  /** `latest` (default), a prefix `24.x`, or a range `>=24.0 <25`. */
  track?: string;
  skip?: string[];
  /** `3d`, `12h`, `1d12h`. */
  minAge?: string;
  group?: string;
}

export interface DetectionRule {
  type: 'file' | 'registry' | 'msi' | 'script';
  path?: string;
  fileName?: string;
  is32Bit?: boolean;
  operator?: DetectionOperatorName;
  targetVersion?: string;
  keyPath?: string;
  valueName?: string;
  productCode?: string;
  scriptContent?: string;
  description?: string;
}

export interface CustomPackageSpec {
  name: string;
  publisher?: string;
  version: string;
  sourceType: SourceType;
  installCommand?: string;
  uninstallCommand?: string;
  userContext?: boolean;
  runAnalysis?: boolean;
  scriptTemplate?: string;
  detectionRules?: DetectionRule[];
  /** Directory relative to the repository root. */
  content?: string;
}

export interface PackageSpec {
  suspend?: boolean;
  catalog?: CatalogPackageSpec;
  custom?: CustomPackageSpec;
}

export interface FlowSpec {
  suspend?: boolean;
  name?: string;
  /** Catalog app name or id (exclusive with `package`). */
  app?: string;
  /** Package manifest name (exclusive with `app`). */
  package?: string;
  patchGroup?: string;
  scope?: Scope;
  flags?: FlowFlagName[];
  supersedenceHistoryCount?: number;
  scriptTemplate?: string;
  /** Change windows and freezes for the flow's deployments (docs/policy.md). */
  windows?: WindowsSpec;
  /** Promotion gates over the deployments the service starts itself in this flow (docs/reconcile.md). */
  promotion?: PromotionSpec;
}

/** `spec.windows` as written (docs/policy.md); evaluated by plan/windows/windows.ts. */
export interface WindowsSpec {
  /** IANA time zone name. */
  timezone: string;
  /** `Mon-Thu 08:00-16:00`; absent: every hour is allowed. */
  allow?: string[];
  freeze?: FreezeSpec[];
}

/** Whole days in the windows' time zone, `to` included. */
export interface FreezeSpec {
  from: string;
  to: string;
  reason?: string;
}

export type DeploymentState = 'pending' | 'running' | 'stopped';

/** Default when a manifest leaves `state` out: deploying is the point of a Deployment. */
export const DEFAULT_DEPLOYMENT_STATE: DeploymentState = 'running';

export interface DeploymentSpec {
  suspend?: boolean;
  flow: string;
  package: string;
  version?: string;
  state?: DeploymentState;
  wave?: number;
  /** Automatic promotion with health gates (exclusive with `wave`). */
  promotion?: PromotionSpec;
  contentRevision?: number;
  /** Overrides the flow's windows as a whole (docs/policy.md). */
  windows?: WindowsSpec;
}

/** `spec.promotion` as written: durations like `2h`, rates like `95%` (see promotion-values.ts). */
export interface PromotionSpec {
  soak?: string;
  minDevices?: number;
  successRate?: string;
  maxFailureRate?: string;
  deadline?: string;
  onFailure?: 'stop' | 'hold';
  toWave?: number;
}

export interface TenantUploadSpec {
  suspend?: boolean;
  /** Tenant defaultDomain, displayName or id. */
  tenant: string;
  package: string;
  uploadMsixAsWin32?: boolean;
}

interface ManifestBase<K extends Kind, S> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: Metadata;
  spec: S;
  /** Position of the document's start. */
  source: SourcePosition;
  /**
   * Positions of the fields the planner resolves against the live state, by dotted path
   * (`spec.catalog.app`); only fields present in the document. See `manifests/positions.ts`.
   */
  positions?: Record<string, SourcePosition>;
}

export type PackageManifest = ManifestBase<'Package', PackageSpec> & {
  /** For custom packages with content: absolute path and sha256 digest of the content tree. */
  content?: { dir: string; digest: string; files: number; bytes: number; fileList?: { path: string; size: number; sha256: string }[] };
};
export type FlowManifest = ManifestBase<'Flow', FlowSpec>;
export type DeploymentManifest = ManifestBase<'Deployment', DeploymentSpec> & {
  /** Where `spec.promotion.toWave` is written, so a plan error about it points at the value. */
  toWaveSource?: SourcePosition;
};
export type TenantUploadManifest = ManifestBase<'TenantUpload', TenantUploadSpec>;
export type Manifest = PackageManifest | FlowManifest | DeploymentManifest | TenantUploadManifest;

/** A validated desired set. Keys are `Kind/name`. */
export interface DesiredModel {
  /** Absolute path of the repository (or directory) root the manifests were loaded from. */
  root: string;
  packages: PackageManifest[];
  flows: FlowManifest[];
  deployments: DeploymentManifest[];
  tenantUploads: TenantUploadManifest[];
  /** What each Baseline expanded into (plan header, blast guard, expiry notes); absent without one. */
  baselines?: BaselineSummary[];
}

/** One exception of a Baseline and whether it still applies at the time of the load. */
export interface BaselineException {
  app: string;
  ring?: string;
  action: 'omit' | 'override';
  owner: string;
  reason: string;
  expires?: string;
  expired: boolean;
  /** Whole days until it ends (while it applies and has `expires`). */
  daysLeft?: number;
  source: SourcePosition;
}

export interface BaselineSummary {
  name: string;
  source: SourcePosition;
  apps: number;
  rings: number;
  overrides: number;
  exceptions: BaselineException[];
  flows: number;
  deployments: number;
  maxRemoved: number;
  /** `Kind/name` of every object it generated. */
  keys: string[];
}

/** One validation problem. Rule ids are stable (e.g. `schema.enum`, `ref.unresolved`, `yaml.syntax`). */
export interface Problem {
  file: string;
  line: number;
  column: number;
  /** JSON pointer inside the document, e.g. `/spec/state`. */
  pointer: string;
  rule: string;
  message: string;
  severity: 'error' | 'warning';
}

export function manifestKey(kind: Kind, name: string): string {
  return `${kind}/${name}`;
}
