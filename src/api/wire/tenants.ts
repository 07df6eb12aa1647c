/** Tenants and their upload tasks (a package pushed to a tenant's Intune). */
import type { TaskState } from './codes.js';
import type { Timestamp, Uuid } from './scalars.js';

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
