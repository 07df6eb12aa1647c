/**
 * The live model the planner consumes: plain data read from the API, no client handles, so the
 * planner stays pure and tests can build live states by hand.
 */
import type {
  ConfigurationTemplateViewModel,
  V1AppVersionViewModel,
  V1AppViewModel,
  V1DeploymentViewModel,
  V1FlowDetailsViewModel,
  V1FlowViewModel,
  V1PackageViewModel,
  V1TaskViewModel,
  V1TenantViewModel,
  V1WaveLiveDataViewModel,
} from '../api/wire/index.js';
import type { PatchGroupName } from '../api/operations.js';
import type { ErrorCode } from '../util/errors.js';

/** One wave live read for a promotion gate: its data, or why it failed (never a verdict). */
export type WaveLiveRead = { ok: true; data: V1WaveLiveDataViewModel } | { ok: false; error: { code: ErrorCode; message: string } };

export interface LiveFlow extends V1FlowViewModel {
  /** Present when details were read (owned or name-matched flows). */
  details?: V1FlowDetailsViewModel;
}

export interface LiveState {
  apps: V1AppViewModel[];
  /**
   * Versions of catalog apps, read for every app a Package manifest names (one read per app).
   * Keyed by app id; an app absent here was not read, and its versions are not checked.
   */
  appVersions: Record<string, V1AppVersionViewModel[]>;
  /**
   * The service's `errorDetails` of owned packages in state Error (only package details carry
   * it), by package id. Optional: live states built by hand may leave it out.
   */
  packageErrors?: Record<string, string>;
  templates: ConfigurationTemplateViewModel[];
  tenants: V1TenantViewModel[];
  packages: V1PackageViewModel[];
  flows: LiveFlow[];
  /** Deployments by id, gathered from flow details. */
  deployments: V1DeploymentViewModel[];
  /** Upload tasks by tenant id, read only for tenants a TenantUpload names. */
  uploads: Record<string, V1TaskViewModel[]>;
  /** Which lists were read; a list not read is not evidence that an object is missing. */
  read: { apps: boolean; templates: boolean; tenants: boolean; packages: boolean; flows: boolean };
  /**
   * The service's clock when the reads ended (its `Date` header, ISO): promotion gates are timed by
   * it. Absent when the service sent no date. Not part of the live digest (it always moves).
   */
  serviceTime?: string;
  /** Current-wave live data of running deployments with `promotion`, by deployment id. Not part of the live digest. */
  waveLive?: Record<string, WaveLiveRead>;
  /**
   * Patch groups by name, read only when a manifest names one by name: null when the service has
   * no list of them (the v1 API has none; api/patch-groups.ts).
   */
  patchGroups?: PatchGroupName[] | null;
}

export function emptyLiveState(): LiveState {
  return {
    apps: [],
    appVersions: {},
    templates: [],
    tenants: [],
    packages: [],
    flows: [],
    deployments: [],
    uploads: {},
    read: { apps: true, templates: true, tenants: true, packages: true, flows: true },
  };
}
