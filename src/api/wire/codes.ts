/**
 * The client's numeric value tables: every number packsync sends or reads that no public client
 * fully shows is a guess, so they are kept on one page. Each entry says whether it was *seen* (in a
 * public client or a captured answer) or *chosen* (ours), as `docs/api-model.md` does; a test
 * (`test/api/value-tables.test.ts`) pins them to that document. The simulator keeps its own copies
 * (`src/simulator/vocabulary.ts`), so a wrong guess here is not mirrored by the fake.
 */

/*
 * State enums arrive as strings (seen: package `Completed`, task `Running`); a server with a plain
 * int converter would send numbers instead. Each state has an explicit code, read by
 * `tolerant.ts readState`, so that reordering a list can never change what a number means. The
 * codes are chosen (no client shows one) and pinned against `docs/api-model.md` by a test.
 */

/** Package life cycle (names: RoboPackCLI's labels, plus `Processing`, chosen). */
export const PACKAGE_STATE_CODES = {
  Pending: 0, // name: RoboPackCLI label; code chosen
  Running: 1, // name: RoboPackCLI label; code chosen
  Completed: 2, // name: seen; code chosen
  Error: 3, // name: RoboPackCLI label; code chosen
  WaitingForContent: 4, // name: RoboPackCLI label; code chosen
  Processing: 5, // name and code chosen
} as const;
export type PackageState = keyof typeof PACKAGE_STATE_CODES;
export const PACKAGE_STATES = Object.keys(PACKAGE_STATE_CODES) as readonly PackageState[];

/** Tenant upload task life cycle (names: RoboPackCLI's labels). */
export const TASK_STATE_CODES = {
  Pending: 0, // name: RoboPackCLI label; code chosen
  Running: 1, // name: seen; code chosen
  Completed: 2, // name: RoboPackCLI label; code chosen
  Error: 3, // name: RoboPackCLI label; code chosen
  Canceled: 4, // name: RoboPackCLI label; code chosen
} as const;
export type TaskState = keyof typeof TASK_STATE_CODES;
export const TASK_STATES = Object.keys(TASK_STATE_CODES) as readonly TaskState[];

/** Deployment status (chosen; no public client shows it). */
export const DEPLOYMENT_STATUS_CODES = {
  NotStarted: 0, // chosen
  Running: 1, // chosen
  Stopped: 2, // chosen
  Completed: 3, // chosen
  Failed: 4, // chosen
} as const;
export type DeploymentStatus = keyof typeof DEPLOYMENT_STATUS_CODES;
export const DEPLOYMENT_STATUSES = Object.keys(DEPLOYMENT_STATUS_CODES) as readonly DeploymentStatus[];

/** Status of a background content update of a deployment (chosen). */
export const CONTENT_UPDATE_STATUS_CODES = {
  None: 0, // chosen
  Running: 1, // chosen
  Completed: 2, // chosen
  Failed: 3, // chosen
} as const;
export type ContentUpdateStatus = keyof typeof CONTENT_UPDATE_STATUS_CODES;

/** V1InstallerScope as a bitmask-like int (seen: flow create accepts 1, 2, 4). Chosen meaning. */
export const INSTALLER_SCOPE = {
  machine: 1, // value seen; meaning chosen
  user: 2, // value seen; meaning chosen
  both: 4, // value seen; meaning chosen
} as const;

/** Flow flags bitmask, documented by RobopackPS `New-RobopackFlow.ps1` (seen). */
export const FLOW_FLAGS = {
  startNewVersionsAutomatically: 1, // seen
  stopCurrentAndStartNew: 2, // seen
  runAlongsideCurrent: 4, // seen
  doNotRemoveSuperseded: 16, // seen
  uninstallPreviousVersion: 32, // seen
  createMsixAsWin32: 128, // seen
  allowAvailableUninstall: 256, // seen
  useAppNameInIntune: 8192, // seen
  radarTracking: 16384, // seen
  matchNewerVersionsInDetection: 32768, // seen
} as const;
export type FlowFlagName = keyof typeof FLOW_FLAGS;

/** Detection operators as Intune numbers them (chosen to match Intune's Win32 detection operator). */
export const DETECTION_OPERATORS = {
  notConfigured: 0, // chosen (Intune's numbering)
  equal: 1, // chosen
  notEqual: 2, // chosen
  greaterThan: 4, // chosen
  greaterThanOrEqual: 5, // chosen
  lessThan: 8, // chosen
  lessThanOrEqual: 9, // chosen
} as const;
export type DetectionOperatorName = keyof typeof DETECTION_OPERATORS;

/** Package source types; names seen (RobopackPS). The client sends names, so no numbers here. */
export const SOURCE_TYPES = ['msi', 'exe', 'zip'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** PackageSource (seen: 2 on an imported catalog package). 1 = custom upload is chosen. */
export const PACKAGE_SOURCE = {
  custom: 1, // chosen
  catalog: 2, // seen (an imported catalog package)
} as const;

/** Wave flags (chosen). */
export const WAVE_FLAGS = {
  none: 0, // chosen
  requireApproval: 1, // chosen
  completed: 2, // chosen
  current: 4, // chosen
  skipped: 8, // chosen
} as const;
