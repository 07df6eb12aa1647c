/**
 * The typed surface of the v1 API: one method per operation (38 in all), as the rest of packsync
 * sees it. `ApiClient` in `client.ts` implements it over undici; tests may wrap it, never fake it.
 */
import type {
  ConfigurationTemplateDetailsViewModel,
  ConfigurationTemplateViewModel,
  ImportQuery,
  PagingQuery,
  PaginationHeader,
  UploadFileInfoViewModel,
  UploadPackageContentFinalizeViewModel,
  Uuid,
  V1AppDetailsViewModel,
  V1AppViewModel,
  V1DeploymentViewModel,
  V1FlowAddDeploymentViewModel,
  V1FlowCreateViewModel,
  V1FlowDetailsViewModel,
  V1FlowViewModel,
  V1PackageCreateViewModel,
  V1PackageDetailsViewModel,
  V1PackageViewModel,
  V1RadarAppViewModel,
  V1RadarDeviceViewModel,
  V1TaskViewModel,
  V1TenantDetailsViewModel,
  V1TenantViewModel,
  V1WaveDetailsViewModel,
  V1WaveLiveDataViewModel,
} from './wire/index.js';

/** One page of a list operation: the bare JSON array plus the parsed `X-Pagination` header. */
export interface Page<T> {
  items: T[];
  /** Null when the server sent no (or an unreadable) `X-Pagination` header. */
  pagination: PaginationHeader | null;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface BinaryResponse {
  contentType: string;
  /** From `Content-Disposition`, when the server names the file. */
  fileName: string | null;
  body: Buffer;
}

export interface AppQuery extends PagingQuery {
  search?: string;
  showcased?: boolean;
  verified?: boolean;
  logo?: boolean;
}

export interface PackageQuery extends PagingQuery {
  search?: string;
  appId?: Uuid;
}

export interface FlowQuery extends PagingQuery {
  search?: string;
  showDeleted?: boolean;
  appId?: Uuid;
  tenants?: Uuid[];
}

export interface RadarQuery extends PagingQuery {
  search?: string;
  matched?: boolean;
  includeManaged?: boolean;
  includeModernApps?: boolean;
}

export interface DownloadQuery {
  format?: number;
  noScriptWrap?: boolean;
  templateId?: Uuid;
}

export interface ChunkQuery {
  index: number;
  size: number;
  offset: number;
  chunk: number;
}

export interface TenantUploadQuery {
  packageId: Uuid;
  uploadMsixAsWin32?: boolean;
  wait?: boolean;
}

export interface DeleteQuery {
  deleteFromIntune?: boolean;
}

/** Progress of a content upload, emitted after every chunk. */
export interface UploadProgress {
  packageId: Uuid;
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  currentFile: string | null;
}

export interface UploadDirectoryOptions extends CallOptions {
  /** Defaults to 4 MiB, the size public clients use. */
  chunkSize?: number;
  onProgress?: (progress: UploadProgress) => void;
  /**
   * The content digest the plan was made with (`sha256:…`, as `manifests/content.ts` computes it).
   * The bytes sent are digested as they go, and a difference fails the upload before `finalize`:
   * content edited after review is never published (docs/reconcile.md, "Saved plans").
   */
  expectDigest?: string;
}

/** All 38 operations of the v1 interface. */
export interface PacksyncApi {
  // catalog apps
  searchApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>>;
  listShowcasedApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>>;
  listVerifiedApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>>;
  getApp(id: Uuid, opts?: CallOptions): Promise<V1AppDetailsViewModel>;
  /** Returns the id of the new package (bare string or `{id}`/`{packageId}` accepted). */
  importApp(appId: Uuid, query?: ImportQuery, opts?: CallOptions): Promise<Uuid>;

  // script templates
  listTemplates(query?: PagingQuery, opts?: CallOptions): Promise<Page<ConfigurationTemplateViewModel>>;
  getTemplate(id: Uuid, opts?: CallOptions): Promise<ConfigurationTemplateDetailsViewModel>;
  getTemplateBanner(id: Uuid, opts?: CallOptions): Promise<BinaryResponse>;
  getTemplateLogo(id: Uuid, opts?: CallOptions): Promise<BinaryResponse>;

  // packages
  listPackages(query?: PackageQuery, opts?: CallOptions): Promise<Page<V1PackageViewModel>>;
  getPackage(id: Uuid, opts?: CallOptions): Promise<V1PackageDetailsViewModel>;
  downloadPackage(id: Uuid, query?: DownloadQuery, opts?: CallOptions): Promise<BinaryResponse>;
  getPackageDocumentationPdf(id: Uuid, opts?: CallOptions): Promise<BinaryResponse>;
  createPackage(body: V1PackageCreateViewModel, opts?: CallOptions): Promise<V1PackageViewModel>;
  uploadContentChunk(id: Uuid, query: ChunkQuery, chunk: Uint8Array, opts?: CallOptions): Promise<void>;
  finalizeContent(id: Uuid, body: UploadPackageContentFinalizeViewModel, opts?: CallOptions): Promise<void>;
  /** Uploads every file below `dir` (sorted, forward slashes) in chunks, then finalizes. */
  uploadContentDirectory(id: Uuid, dir: string, opts?: UploadDirectoryOptions): Promise<UploadFileInfoViewModel[]>;

  // flows
  listFlows(query?: FlowQuery, opts?: CallOptions): Promise<Page<V1FlowViewModel>>;
  getFlow(id: Uuid, opts?: CallOptions): Promise<V1FlowDetailsViewModel>;
  /** Returns the id of the new flow (bare string per the interface; `{id}` accepted). */
  createFlow(body: V1FlowCreateViewModel, opts?: CallOptions): Promise<Uuid>;
  /** Returns the id of the new deployment (bare string or `{id}` accepted). */
  addDeployment(flowId: Uuid, body: V1FlowAddDeploymentViewModel, opts?: CallOptions): Promise<Uuid>;
  deleteFlow(id: Uuid, query?: DeleteQuery, opts?: CallOptions): Promise<void>;

  // deployments
  getDeployment(id: Uuid, opts?: CallOptions): Promise<V1DeploymentViewModel>;
  deleteDeployment(id: Uuid, query?: DeleteQuery, opts?: CallOptions): Promise<void>;
  startDeployment(id: Uuid, opts?: CallOptions): Promise<void>;
  stopDeployment(id: Uuid, opts?: CallOptions): Promise<void>;
  refreshDeployment(id: Uuid, opts?: CallOptions): Promise<void>;
  skipWave(id: Uuid, opts?: CallOptions): Promise<void>;
  updateContent(id: Uuid, opts?: CallOptions): Promise<void>;

  // waves
  getWave(id: Uuid, opts?: CallOptions): Promise<V1WaveDetailsViewModel>;
  getWaveLive(id: Uuid, opts?: CallOptions): Promise<V1WaveLiveDataViewModel>;

  // tenants
  listTenants(query?: PagingQuery, opts?: CallOptions): Promise<Page<V1TenantViewModel>>;
  getTenant(id: Uuid, opts?: CallOptions): Promise<V1TenantDetailsViewModel>;
  uploadToTenant(tenantId: Uuid, query: TenantUploadQuery, opts?: CallOptions): Promise<V1TaskViewModel>;
  getUploadTask(uploadId: Uuid, opts?: CallOptions): Promise<V1TaskViewModel>;
  listTenantUploads(tenantId: Uuid, query?: PagingQuery, opts?: CallOptions): Promise<Page<V1TaskViewModel>>;

  // radar
  listRadarApps(tenantId: Uuid, query?: RadarQuery, opts?: CallOptions): Promise<Page<V1RadarAppViewModel>>;
  listRadarAppDevices(tenantId: Uuid, appId: Uuid, opts?: CallOptions): Promise<V1RadarDeviceViewModel[]>;
  listRadarEntryDevices(tenantId: Uuid, entryId: Uuid, opts?: CallOptions): Promise<V1RadarDeviceViewModel[]>;

  /**
   * The account's patch groups (id and name) where the service lists them, else null: the v1 API
   * has no such operation, the packsync simulator lists its fixtures (`GET /_sim/fixtures`). Read
   * only when a manifest names a patch group by name (docs/manifests.md, Flow `patchGroup`). Not
   * one of the 38 operations.
   */
  listPatchGroups?(opts?: CallOptions): Promise<PatchGroupName[] | null>;
  /** The service's clock (newest `Date` header seen), when the implementation tracks it. Not an API call. */
  serviceTime?(): Date | null;
  /** The most requests the client has on the wire at once (`--api-concurrency`), when it bounds them. Not an API call. */
  requestSlots?(): number;
}

/** Names of the 38 operations (the directory upload is a composite, the service clock no call, the patch groups no v1 operation). */
export type OperationName = Exclude<keyof PacksyncApi, 'uploadContentDirectory' | 'serviceTime' | 'requestSlots' | 'listPatchGroups'>;

/** A patch group as a name lookup needs it. */
export interface PatchGroupName {
  id: string;
  name: string;
}

/** List operations whose only argument is a paging query. */
export type PagedListOperation =
  'searchApps' | 'listShowcasedApps' | 'listVerifiedApps' | 'listTemplates' | 'listPackages' | 'listFlows' | 'listTenants';
/** The item type of a paged list operation. */
export type ItemOf<K extends PagedListOperation> = Awaited<ReturnType<PacksyncApi[K]>> extends Page<infer T> ? T : never;
export type QueryOf<K extends PagedListOperation> = Omit<
  NonNullable<Parameters<PacksyncApi[K]>[0]>,
  'page' | 'itemsPerPage' | 'disablePaging'
>;
