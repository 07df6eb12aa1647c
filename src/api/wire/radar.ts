/** Radar: apps found on a tenant's devices, matched or not against the catalog. */
import type { Timestamp, Uuid } from './scalars.js';

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
