/**
 * Wire types of the Package and Deployment Management Service v1 API.
 *
 * Its *types* are the single contract between the API client and the simulator (the simulator
 * imports nothing else from `src/api/`, and only with `import type`). Its *value tables* are the
 * client's alone: the simulator keeps its own (`src/simulator/vocabulary.ts`) so a wrong guess is
 * not mirrored, and a test pins both to `docs/api-model.md`. Field names follow what public clients show (see
 * `docs/api-model.md`, where each field is marked "seen in public clients" or "chosen").
 * Readers must stay tolerant: the real service may add fields, and where clients disagree the
 * client accepts every variant (see `tolerant.ts`).
 */

/** A GUID in the canonical 8-4-4-4-12 form. */
export type Uuid = string;
/** ISO 8601 with offset, .NET `DateTimeOffset` style: `2026-02-18T21:12:10.3492918+00:00`. */
export type Timestamp = string;

// ---------------------------------------------------------------- enums

/*
 * State enums arrive as strings (seen: package `Completed`, task `Running`); a server with a plain
 * int converter would send numbers instead. Each state has an explicit code, read by
 * `tolerant.ts readState`, so that reordering a list can never change what a number means. The
 * codes are chosen (no client shows one) and pinned against `docs/api-model.md` by a test.
 */

/** Package life cycle (names: RoboPackCLI's labels, plus `Processing`, chosen). */
export const PACKAGE_STATE_CODES = { Pending: 0, Running: 1, Completed: 2, Error: 3, WaitingForContent: 4, Processing: 5 } as const;
export type PackageState = keyof typeof PACKAGE_STATE_CODES;
export const PACKAGE_STATES = Object.keys(PACKAGE_STATE_CODES) as readonly PackageState[];

/** Tenant upload task life cycle (names: RoboPackCLI's labels). */
export const TASK_STATE_CODES = { Pending: 0, Running: 1, Completed: 2, Error: 3, Canceled: 4 } as const;
export type TaskState = keyof typeof TASK_STATE_CODES;
export const TASK_STATES = Object.keys(TASK_STATE_CODES) as readonly TaskState[];

/** Deployment status (chosen; no public client shows it). */
export const DEPLOYMENT_STATUS_CODES = { NotStarted: 0, Running: 1, Stopped: 2, Completed: 3, Failed: 4 } as const;
export type DeploymentStatus = keyof typeof DEPLOYMENT_STATUS_CODES;
export const DEPLOYMENT_STATUSES = Object.keys(DEPLOYMENT_STATUS_CODES) as readonly DeploymentStatus[];

/** Status of a background content update of a deployment (chosen). */
export const CONTENT_UPDATE_STATUS_CODES = { None: 0, Running: 1, Completed: 2, Failed: 3 } as const;
export type ContentUpdateStatus = keyof typeof CONTENT_UPDATE_STATUS_CODES;

/** V1InstallerScope as a bitmask-like int (seen: flow create accepts 1, 2, 4). Chosen meaning. */
export const INSTALLER_SCOPE = { machine: 1, user: 2, both: 4 } as const;

/** Flow flags bitmask, documented by RobopackPS `New-RobopackFlow.ps1` (seen). */
export const FLOW_FLAGS = {
  startNewVersionsAutomatically: 1,
  stopCurrentAndStartNew: 2,
  runAlongsideCurrent: 4,
  doNotRemoveSuperseded: 16,
  uninstallPreviousVersion: 32,
  createMsixAsWin32: 128,
  allowAvailableUninstall: 256,
  useAppNameInIntune: 8192,
  radarTracking: 16384,
  matchNewerVersionsInDetection: 32768,
} as const;
export type FlowFlagName = keyof typeof FLOW_FLAGS;

/** Detection operators as Intune numbers them (chosen to match Intune's Win32 detection operator). */
export const DETECTION_OPERATORS = {
  notConfigured: 0,
  equal: 1,
  notEqual: 2,
  greaterThan: 4,
  greaterThanOrEqual: 5,
  lessThan: 8,
  lessThanOrEqual: 9,
} as const;
export type DetectionOperatorName = keyof typeof DETECTION_OPERATORS;

export const SOURCE_TYPES = ['msi', 'exe', 'zip'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** PackageSource (seen: 2 on an imported catalog package). 1 = custom upload is chosen. */
export const PACKAGE_SOURCE = { custom: 1, catalog: 2 } as const;

/** Wave flags (chosen). */
export const WAVE_FLAGS = { none: 0, requireApproval: 1, completed: 2, current: 4, skipped: 8 } as const;

// ---------------------------------------------------------------- paging

/** The `X-Pagination` response header (seen: RoboPackCLI `test_parse_pagination_current_api_shape`). */
export interface PaginationHeader {
  totalCount: number;
  itemsPerPage: number;
  page: number;
  totalPages: number;
  hasNext: boolean;
  hasPrevious: boolean;
}

export interface PagingQuery {
  page?: number;
  itemsPerPage?: number;
  disablePaging?: boolean;
  sortBy?: string;
  sortDesc?: boolean;
}

// ---------------------------------------------------------------- catalog apps

export interface V1AppViewModel {
  id: Uuid;
  name: string;
  publisherName: string;
  description: string;
  shortDescription: string;
  /** Base64 image data when `logo=true`, else null (seen: EUCToolbox). */
  logoData: string | null;
  verified: boolean;
  showcased: boolean;
  machineScope: boolean;
  userScope: boolean;
  latestVersion: string;
  tags: string[];
  flags: number;
}

export interface V1AppVersionViewModel {
  id: Uuid;
  version: string;
  createdDate: Timestamp;
  description: string;
  machineScope: boolean;
  userScope: boolean;
  storeApp: boolean;
}

export interface V1AppDetailsViewModel extends V1AppViewModel {
  versions: V1AppVersionViewModel[];
}

// ---------------------------------------------------------------- script templates

export interface ConfigurationTemplateViewModel {
  id: Uuid;
  created: Timestamp;
  updated: Timestamp;
  name: string;
  enabled: boolean;
  organizationId: Uuid | null;
  organizationName: string | null;
  shared: boolean;
  flags: number;
  scriptSourceId: Uuid;
  scriptSource: { id: Uuid; name: string };
  hasBannerImage: boolean;
  hasLogoImage: boolean;
}

export interface InstallationScriptViewModel {
  flags: number;
  companyName: string;
  logFileDirectory: string;
  psadtInstallationProgress: { show: boolean; statusMessage: string };
}

export interface ConfigurationTemplateDetailsViewModel extends ConfigurationTemplateViewModel {
  scriptTemplate: InstallationScriptViewModel;
}

// ---------------------------------------------------------------- packages

export interface MemDetectionRule {
  type: 'file' | 'registry' | 'msi' | 'script';
  path?: string;
  fileName?: string;
  is32Bit?: boolean;
  /** Intune operator number (see DETECTION_OPERATORS); names accepted on input. */
  operator?: number;
  targetVersion?: string;
  keyPath?: string;
  valueName?: string;
  productCode?: string;
  scriptContent?: string;
  description?: string;
}

export interface V1PackageCreateViewModel {
  name: string;
  sourceType: SourceType;
  publisher?: string;
  version?: string;
  installCommand?: string;
  uninstallCommand?: string;
  userContext?: boolean;
  runAnalysis?: boolean;
  scriptTemplateId?: Uuid;
  logoData?: string;
  detectionRules?: MemDetectionRule[];
}

export interface ImportInfo {
  app: { publisher: string; name: string; description: string };
  program: { installCommand: string; uninstallCommand: string };
}

export interface V1PackageViewModel {
  id: Uuid;
  appId: Uuid | null;
  created: Timestamp;
  productName: string;
  manufacturer: string;
  productVersion: string;
  state: PackageState;
  fullProductName: string;
  fileName: string;
  size: number;
  downloadAvailable: boolean;
  newVersionAvailable: boolean;
  latestVersion: string | null;
  source: number;
  isCustom: boolean;
  userScope: boolean;
  machineScope: boolean;
  importInfo: ImportInfo | null;
}

export interface V1PackageIssueViewModel {
  code: string;
  message: string;
  severity: 'Info' | 'Warning' | 'Error';
}

export interface UploadFileInfoViewModel {
  /** Path relative to the content root, forward slashes. */
  fileName: string;
  fileSize: number;
}

export interface UploadPackageContentFinalizeViewModel {
  files: UploadFileInfoViewModel[];
}

export interface V1PackageDetailsViewModel extends V1PackageViewModel {
  errorDetails: string | null;
  issues: V1PackageIssueViewModel[];
  outputFormats: string[];
  sourceType: SourceType | null;
  installCommand: string | null;
  uninstallCommand: string | null;
  scriptTemplateId: Uuid | null;
  detectionRules: MemDetectionRule[];
  files: UploadFileInfoViewModel[];
}

// ---------------------------------------------------------------- tenants and upload tasks

export interface V1TenantViewModel {
  id: Uuid;
  created: Timestamp;
  displayName: string;
  defaultDomain: string;
  backgroundColor: string;
  flags: number;
  adminConsentGranted: boolean;
}

export interface IntuneInfoViewModel {
  connected: boolean;
  lastSync: Timestamp | null;
  appCount: number;
}

export interface V1TenantDetailsViewModel extends V1TenantViewModel {
  intune: IntuneInfoViewModel;
}

export interface V1TaskViewModel {
  id: Uuid;
  created: Timestamp;
  startedAt: Timestamp | null;
  completedAt: Timestamp | null;
  supportsProgress: boolean;
  progress: number | null;
  state: TaskState;
  /** Chosen (not in the captured sample): lets a reader match uploads to packages. */
  tenantId: Uuid;
  packageId: Uuid;
  errorDetails: string | null;
}

// ---------------------------------------------------------------- flows, deployments, waves

export interface V1FlowCreateViewModel {
  name?: string;
  patchGroupId?: Uuid;
  appId?: Uuid;
  packageId?: Uuid;
  /** 1, 2 or 4 (INSTALLER_SCOPE); names accepted on input. */
  scope?: number;
  flags?: number;
  supersedenceHistoryCount?: number;
  templateId?: Uuid;
}

export interface V1FlowAddDeploymentViewModel {
  packageId: Uuid;
  startNow?: boolean;
  version?: string;
}

export interface V1FlowViewModel {
  id: Uuid;
  name: string;
  created: Timestamp;
  appId: Uuid | null;
  packageId: Uuid | null;
  patchGroupId: Uuid | null;
  scope: number;
  flags: number;
  supersedenceHistoryCount: number;
  templateId: Uuid | null;
  deleted: boolean;
  tenantIds: Uuid[];
  deploymentCount: number;
}

export interface V1WaveViewModel {
  id: Uuid;
  flowId: Uuid;
  /** 1-based position in the flow. */
  index: number;
  name: string;
  /** Virtual hours a wave runs before the next one starts. */
  delayHours: number;
  flags: number;
  tenantIds: Uuid[];
}

export interface DeploymentWaveTenantStatusViewModel {
  tenantId: Uuid;
  flags: number;
  status: 'Pending' | 'InProgress' | 'Completed' | 'Failed' | 'Skipped';
}

export interface V1WaveDetailsViewModel extends V1WaveViewModel {
  tenants: DeploymentWaveTenantStatusViewModel[];
}

export interface V1WaveTenantLiveDataViewModel {
  tenantId: Uuid;
  installed: number;
  failed: number;
  pending: number;
  notApplicable: number;
}

export interface V1WaveLiveDataViewModel {
  waveId: Uuid;
  deploymentId: Uuid | null;
  updated: Timestamp;
  tenants: V1WaveTenantLiveDataViewModel[];
}

export interface V1DeploymentViewModel {
  id: Uuid;
  flowId: Uuid;
  packageId: Uuid;
  version: string;
  created: Timestamp;
  status: DeploymentStatus;
  /** 1-based index of the wave in progress; 0 before start. */
  currentWave: number;
  currentWaveId: Uuid | null;
  waveCount: number;
  startedAt: Timestamp | null;
  stoppedAt: Timestamp | null;
  completedAt: Timestamp | null;
  contentUpdateStatus: ContentUpdateStatus;
  contentUpdatedAt: Timestamp | null;
}

/** The current (newest) deployment of a flow, as carried in flow details. */
export interface V1DeploymentCurrentViewModel {
  id: Uuid;
  packageId: Uuid;
  version: string;
  status: DeploymentStatus;
  currentWave: number;
}

export interface V1FlowDetailsViewModel extends V1FlowViewModel {
  waves: V1WaveViewModel[];
  deployments: V1DeploymentViewModel[];
  currentDeployment: V1DeploymentCurrentViewModel | null;
}

// ---------------------------------------------------------------- radar

export interface V1RadarAppEntryViewModel {
  id: Uuid;
  version: string;
  deviceCount: number;
}

export interface V1RadarAppViewModel {
  id: Uuid;
  tenantId: Uuid;
  name: string;
  publisher: string;
  deviceCount: number;
  matched: boolean;
  managed: boolean;
  modernApp: boolean;
  flags: number;
  matchedAppId: Uuid | null;
  entries: V1RadarAppEntryViewModel[];
}

export interface V1RadarDeviceViewModel {
  id: Uuid;
  deviceName: string;
  userPrincipalName: string;
  operatingSystem: string;
  osVersion: string;
  version: string;
  lastSeen: Timestamp;
}

// ---------------------------------------------------------------- errors

/** RFC 7807 problem details, as ASP.NET Core writes them. */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  instance?: string;
  /** Field errors, ASP.NET Core validation style: field name -> messages. */
  errors?: Record<string, string[]>;
  [extension: string]: unknown;
}
