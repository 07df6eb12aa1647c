/**
 * The v1 API client: one method per operation over `HttpTransport`, each a line over the send-and-
 * decode calls of `responses.ts`. Responses are read tolerantly (`tolerant.ts`) and states
 * normalised, so the rest of packsync sees one canonical shape.
 *
 * Longer than 300 lines: one short method per operation of the v1 API (38 of them), in the order of
 * `PacksyncApi`; split by resource, one interface's implementation would be spread over six files.
 */
import type {
  AppQuery,
  BinaryResponse,
  CallOptions,
  ChunkQuery,
  DeleteQuery,
  DownloadQuery,
  FlowQuery,
  Page,
  PackageQuery,
  ItemOf,
  PacksyncApi,
  PagedListOperation,
  PatchGroupName,
  QueryOf,
  RadarQuery,
  TenantUploadQuery,
  UploadDirectoryOptions,
} from './operations.js';
import { iterateAll } from './paging.js';
import { readPatchGroups } from './patch-groups.js';
import type { IterateOptions } from './paging.js';
import { Calls, readCreated } from './responses.js';
import { normalizeAppDetails, normalizeDeployment, normalizeFlowDetails, normalizePackage, normalizeTask } from './tolerant.js';
import { HttpTransport } from './transport.js';
import type { TransportOptions } from './transport.js';
import { uploadContentDirectory } from './upload.js';
import type {
  ConfigurationTemplateDetailsViewModel,
  ConfigurationTemplateViewModel,
  ImportQuery,
  PagingQuery,
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

export type { RequestEvent } from './transport.js';

/**
 * The client's options are the transport's (documented in `transport.ts`); the client has none of
 * its own, so one list cannot drift from the other.
 */
export type ApiClientOptions = TransportOptions;

const enc = encodeURIComponent;

export class ApiClient implements PacksyncApi {
  private readonly http: HttpTransport;
  private readonly calls: Calls;

  constructor(opts: ApiClientOptions) {
    this.http = new HttpTransport(opts);
    this.calls = new Calls(this.http);
  }

  /** The service's clock from the newest `Date` header it sent, or null before any answer. */
  serviceTime(): Date | null {
    return this.http.serviceTime();
  }

  /** Patch groups by name where the service lists them (api/patch-groups.ts); null where it does not. */
  listPatchGroups(opts?: CallOptions): Promise<PatchGroupName[] | null> {
    return readPatchGroups(this.http, opts);
  }

  /** The most requests sent at once (`concurrency`): a reader keeps twice as many going (live/read-concurrency.ts). */
  requestSlots(): number {
    return this.http.slots;
  }

  /** Closes the connection pool the client created (an injected dispatcher stays open). */
  close(): Promise<void> {
    return this.http.close();
  }

  // ------------------------------------------------------------ iteration

  /** Every item of a paged list, e.g. `client.iterateAll('listPackages', { search: 'x' })`. */
  iterateAll<K extends PagedListOperation>(
    op: K,
    query?: QueryOf<K>,
    opts: CallOptions & IterateOptions = {},
  ): AsyncGenerator<ItemOf<K>, void, undefined> {
    const list = this[op].bind(this) as unknown as (q: PagingQuery, o?: CallOptions) => Promise<Page<ItemOf<K>>>;
    return this.iterate(list, (query ?? {}) as PagingQuery, opts);
  }

  /** Every item of any paged list function (`(q, o) => client.listRadarApps(tenantId, q, o)`). */
  iterate<Q extends PagingQuery, T>(
    list: (query: Q, opts?: CallOptions) => Promise<Page<T>>,
    query: Q,
    opts: CallOptions & IterateOptions = {},
  ): AsyncGenerator<T, void, undefined> {
    const { signal, ...paging } = opts;
    const callOpts: CallOptions = signal ? { signal } : {};
    return iterateAll((req) => list({ ...query, ...req }, callOpts), paging);
  }

  // ------------------------------------------------------------ catalog apps

  searchApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>> {
    return this.calls.getList('searchApps', '/v1/app', query, opts);
  }

  listShowcasedApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>> {
    return this.calls.getList('listShowcasedApps', '/v1/app/showcase', query, opts);
  }

  listVerifiedApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>> {
    return this.calls.getList('listVerifiedApps', '/v1/app/verified', query, opts);
  }

  async getApp(id: Uuid, opts?: CallOptions): Promise<V1AppDetailsViewModel> {
    return normalizeAppDetails(await this.calls.getObject<V1AppDetailsViewModel>('getApp', `/v1/app/${enc(id)}`, opts), 'getApp');
  }

  importApp(appId: Uuid, query?: ImportQuery, opts?: CallOptions): Promise<Uuid> {
    return this.calls.postId('importApp', `/v1/app/import/${enc(appId)}`, opts, query ? { query } : {});
  }

  // ------------------------------------------------------------ script templates

  listTemplates(query?: PagingQuery, opts?: CallOptions): Promise<Page<ConfigurationTemplateViewModel>> {
    return this.calls.getList('listTemplates', '/v1/template', query, opts);
  }

  getTemplate(id: Uuid, opts?: CallOptions): Promise<ConfigurationTemplateDetailsViewModel> {
    return this.calls.getObject('getTemplate', `/v1/template/${enc(id)}`, opts);
  }

  getTemplateBanner(id: Uuid, opts?: CallOptions): Promise<BinaryResponse> {
    return this.calls.getBinary('getTemplateBanner', `/v1/template/${enc(id)}/banner`, undefined, opts);
  }

  getTemplateLogo(id: Uuid, opts?: CallOptions): Promise<BinaryResponse> {
    return this.calls.getBinary('getTemplateLogo', `/v1/template/${enc(id)}/logo`, undefined, opts);
  }

  // ------------------------------------------------------------ packages

  async listPackages(query?: PackageQuery, opts?: CallOptions): Promise<Page<V1PackageViewModel>> {
    const page = await this.calls.getList<V1PackageViewModel>('listPackages', '/v1/package', query, opts);
    return { ...page, items: page.items.map((p) => normalizePackage(p)) };
  }

  async getPackage(id: Uuid, opts?: CallOptions): Promise<V1PackageDetailsViewModel> {
    return normalizePackage(await this.calls.getObject<V1PackageDetailsViewModel>('getPackage', `/v1/package/${enc(id)}`, opts));
  }

  downloadPackage(id: Uuid, query?: DownloadQuery, opts?: CallOptions): Promise<BinaryResponse> {
    return this.calls.getBinary('downloadPackage', `/v1/package/${enc(id)}/download`, query, opts);
  }

  getPackageDocumentationPdf(id: Uuid, opts?: CallOptions): Promise<BinaryResponse> {
    return this.calls.getBinary('getPackageDocumentationPdf', `/v1/package/${enc(id)}/documentation/pdf`, undefined, opts);
  }

  async createPackage(body: V1PackageCreateViewModel, opts?: CallOptions): Promise<V1PackageViewModel> {
    const res = await this.calls.send('createPackage', 'POST', '/v1/package/create', opts, { body });
    return normalizePackage(readCreated<V1PackageViewModel>('createPackage', res, 'the created package'));
  }

  async uploadContentChunk(id: Uuid, query: ChunkQuery, chunk: Uint8Array, opts?: CallOptions): Promise<void> {
    const q = { index: query.index, size: query.size, offset: query.offset, chunk: query.chunk };
    await this.calls.send('uploadContentChunk', 'POST', `/v1/package/content/${enc(id)}`, opts, {
      query: q,
      binary: chunk,
    });
  }

  async finalizeContent(id: Uuid, body: UploadPackageContentFinalizeViewModel, opts?: CallOptions): Promise<void> {
    await this.calls.send('finalizeContent', 'POST', `/v1/package/content/${enc(id)}/finalize`, opts, { body });
  }

  uploadContentDirectory(id: Uuid, dir: string, opts?: UploadDirectoryOptions): Promise<UploadFileInfoViewModel[]> {
    return uploadContentDirectory(this, id, dir, opts);
  }

  // ------------------------------------------------------------ flows

  listFlows(query?: FlowQuery, opts?: CallOptions): Promise<Page<V1FlowViewModel>> {
    return this.calls.getList('listFlows', '/v1/flow', query, opts);
  }

  async getFlow(id: Uuid, opts?: CallOptions): Promise<V1FlowDetailsViewModel> {
    return normalizeFlowDetails(await this.calls.getObject<V1FlowDetailsViewModel>('getFlow', `/v1/flow/${enc(id)}`, opts));
  }

  createFlow(body: V1FlowCreateViewModel, opts?: CallOptions): Promise<Uuid> {
    return this.calls.postId('createFlow', '/v1/flow/create', opts, { body });
  }

  addDeployment(flowId: Uuid, body: V1FlowAddDeploymentViewModel, opts?: CallOptions): Promise<Uuid> {
    return this.calls.postId('addDeployment', `/v1/flow/${enc(flowId)}/add-deployment`, opts, { body });
  }

  async deleteFlow(id: Uuid, query?: DeleteQuery, opts?: CallOptions): Promise<void> {
    await this.calls.send('deleteFlow', 'DELETE', `/v1/flow/${enc(id)}`, opts, { query });
  }

  // ------------------------------------------------------------ deployments

  async getDeployment(id: Uuid, opts?: CallOptions): Promise<V1DeploymentViewModel> {
    return normalizeDeployment(await this.calls.getObject<V1DeploymentViewModel>('getDeployment', `/v1/flow/deployment/${enc(id)}`, opts));
  }

  async deleteDeployment(id: Uuid, query?: DeleteQuery, opts?: CallOptions): Promise<void> {
    await this.calls.send('deleteDeployment', 'DELETE', `/v1/flow/deployment/${enc(id)}`, opts, { query });
  }

  /** Safe to repeat: a second start of a started deployment answers 409, which callers check. */
  startDeployment(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.calls.action('startDeployment', `/v1/flow/deployment/${enc(id)}/start`, opts);
  }

  stopDeployment(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.calls.action('stopDeployment', `/v1/flow/deployment/${enc(id)}/stop`, opts);
  }

  refreshDeployment(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.calls.action('refreshDeployment', `/v1/flow/deployment/${enc(id)}/refresh`, opts);
  }

  /** NOT safe to repeat: a duplicate skip-wave skips two waves. */
  skipWave(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.calls.action('skipWave', `/v1/flow/deployment/${enc(id)}/skip-wave`, opts);
  }

  /** NOT safe to repeat: each call starts another background content update. */
  updateContent(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.calls.action('updateContent', `/v1/flow/deployment/${enc(id)}/update-content`, opts);
  }

  // ------------------------------------------------------------ waves

  getWave(id: Uuid, opts?: CallOptions): Promise<V1WaveDetailsViewModel> {
    return this.calls.getObject('getWave', `/v1/flow/wave/${enc(id)}`, opts);
  }

  getWaveLive(id: Uuid, opts?: CallOptions): Promise<V1WaveLiveDataViewModel> {
    return this.calls.getObject('getWaveLive', `/v1/flow/wave/${enc(id)}/live`, opts);
  }

  // ------------------------------------------------------------ tenants

  listTenants(query?: PagingQuery, opts?: CallOptions): Promise<Page<V1TenantViewModel>> {
    return this.calls.getList('listTenants', '/v1/tenant', query, opts);
  }

  getTenant(id: Uuid, opts?: CallOptions): Promise<V1TenantDetailsViewModel> {
    return this.calls.getObject('getTenant', `/v1/tenant/${enc(id)}`, opts);
  }

  /** NOT safe to repeat: each call creates another upload task. */
  async uploadToTenant(tenantId: Uuid, query: TenantUploadQuery, opts?: CallOptions): Promise<V1TaskViewModel> {
    const res = await this.calls.send('uploadToTenant', 'POST', `/v1/tenant/${enc(tenantId)}/upload`, opts, { query });
    return normalizeTask(readCreated<V1TaskViewModel>('uploadToTenant', res, 'the upload task'));
  }

  async getUploadTask(uploadId: Uuid, opts?: CallOptions): Promise<V1TaskViewModel> {
    return normalizeTask(await this.calls.getObject<V1TaskViewModel>('getUploadTask', `/v1/tenant/upload/${enc(uploadId)}`, opts));
  }

  async listTenantUploads(tenantId: Uuid, query?: PagingQuery, opts?: CallOptions): Promise<Page<V1TaskViewModel>> {
    const page = await this.calls.getList<V1TaskViewModel>('listTenantUploads', `/v1/tenant/${enc(tenantId)}/uploads`, query, opts);
    return { ...page, items: page.items.map((t) => normalizeTask(t)) };
  }

  // ------------------------------------------------------------ radar

  listRadarApps(tenantId: Uuid, query?: RadarQuery, opts?: CallOptions): Promise<Page<V1RadarAppViewModel>> {
    return this.calls.getList('listRadarApps', `/v1/tenant/${enc(tenantId)}/radar`, query, opts);
  }

  async listRadarAppDevices(tenantId: Uuid, appId: Uuid, opts?: CallOptions): Promise<V1RadarDeviceViewModel[]> {
    return (
      await this.calls.getList<V1RadarDeviceViewModel>(
        'listRadarAppDevices',
        `/v1/tenant/${enc(tenantId)}/radar/${enc(appId)}/devices`,
        undefined,
        opts,
      )
    ).items;
  }

  async listRadarEntryDevices(tenantId: Uuid, entryId: Uuid, opts?: CallOptions): Promise<V1RadarDeviceViewModel[]> {
    return (
      await this.calls.getList<V1RadarDeviceViewModel>(
        'listRadarEntryDevices',
        `/v1/tenant/${enc(tenantId)}/radar/entry/${enc(entryId)}/devices`,
        undefined,
        opts,
      )
    ).items;
  }
}

export function createApiClient(opts: ApiClientOptions): ApiClient {
  return new ApiClient(opts);
}
