/** Catalog apps: the vendor's app catalog, and the query that imports one of its apps as a package. */
import type { Timestamp, Uuid } from './scalars.js';

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

/** Query of `POST /v1/app/import/{appId}`; a wire type so the planner can describe an import without the client. */
export interface ImportQuery {
  /** INSTALLER_SCOPE number; the client sends the number. */
  scope?: number;
  version?: string;
  versionId?: Uuid;
  scriptTemplateId?: Uuid;
}
