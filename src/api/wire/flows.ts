/** Flows and what hangs off them: deployments (one per package version) and waves (tenant rings). */
import type { ContentUpdateStatus, DeploymentStatus } from './codes.js';
import type { Timestamp, Uuid } from './scalars.js';

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
  /** Chosen (docs/api-model.md): the tenant's display name, so a wave's reach can be named without another read. */
  displayName?: string;
  /** Chosen (docs/api-model.md): managed devices of the tenant, what a wave reaching it reaches. */
  deviceCount?: number;
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
