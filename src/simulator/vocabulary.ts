/**
 * The simulator's own value tables: state names, numeric codes and bitmasks, as the simulator
 * believes the real service has them. They are written out here on purpose and not imported from
 * `src/api/wire/` (docs/architecture.md): if both sides shared one table, a wrong guess about a number
 * would be mirrored by the fake the client is tested against and no test could see it. Both sides
 * are pinned against the tables in `docs/api-model.md` by `test/api/value-tables.test.ts`.
 *
 * Types come from the wire types (names are part of the shape); values never do.
 */
import type { DeploymentStatus, PackageState } from '../api/wire/index.js';

/** Package states the admin hook accepts; on the wire they are strings. */
export const PACKAGE_STATES: readonly PackageState[] = ['Pending', 'Running', 'Completed', 'Error', 'WaitingForContent', 'Processing'];

/** Deployment statuses the admin hook accepts; on the wire they are strings. */
export const DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = ['NotStarted', 'Running', 'Stopped', 'Completed', 'Failed'];

/** V1InstallerScope: flow create and import take 1, 2 or 4 (seen); what each means is chosen. */
export const INSTALLER_SCOPE = { machine: 1, user: 2, both: 4 } as const;

/** Flow flags bitmask (seen: RobopackPS `New-RobopackFlow.ps1` help). */
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

/** Detection rule operators, numbered as Intune numbers its Win32 detection operators (chosen). */
export const DETECTION_OPERATORS = {
  notConfigured: 0,
  equal: 1,
  notEqual: 2,
  greaterThan: 4,
  greaterThanOrEqual: 5,
  lessThan: 8,
  lessThanOrEqual: 9,
} as const;

/** Package create `sourceType`: lowercase names (seen); the numbers a number input means are chosen. */
export const SOURCE_TYPES = { msi: 0, exe: 1, zip: 2 } as const;

/** PackageSource: 2 on an imported catalog package (seen), 1 for a custom upload (chosen). */
export const PACKAGE_SOURCE = { custom: 1, catalog: 2 } as const;

/** Download formats: RobopackPS sends an int, RoboPackCLI a name; the mapping is chosen. */
export const DOWNLOAD_FORMATS = { IntuneWin: 0, PSADT: 1, SourceFiles: 2, AppV: 3, MSIX: 4, CIM: 5, VHD: 6, VHDX: 7 } as const;

/** WaveFlags (docs/api-model.md, all chosen): the stored `requireApproval`, and what a wave is to its deployment. */
export const WAVE_FLAGS = { requireApproval: 1, completed: 2, current: 4, skipped: 8 } as const;
