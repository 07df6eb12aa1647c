/**
 * The v1 API client: one method per operation over `HttpTransport`. Responses are read tolerantly
 * (`tolerant.ts`) and states normalised, so the rest of packsync sees one canonical shape.
 */
import type { Dispatcher } from 'undici';
import { ApiError } from './errors.js';
import type {
  AppQuery,
  BinaryResponse,
  CallOptions,
  ChunkQuery,
  DeleteQuery,
  DownloadQuery,
  FlowQuery,
  ImportQuery,
  OperationName,
  Page,
  PackageQuery,
  PacksyncApi,
  RadarQuery,
  TenantUploadQuery,
  UploadDirectoryOptions,
} from './operations.js';
import { iterateAll, parsePaginationHeader } from './paging.js';
import type { IterateOptions } from './paging.js';
import type { Clock } from './rate-limit.js';
import type { RetryOptions, Sleep } from './retry.js';
import {
  normalizeDeployment,
  normalizeFlowDetails,
  normalizePackage,
  normalizeTask,
  readIdText,
  readList,
} from './tolerant.js';
import { firstHeader, parseContentDisposition } from './http-encoding.js';
import { HttpTransport } from './transport.js';
import type { HttpMethod, HttpResponse, RequestEvent } from './transport.js';
import { uploadContentDirectory } from './upload.js';
import type {
  ConfigurationTemplateDetailsViewModel,
  ConfigurationTemplateViewModel,
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
} from './wire-types.js';

export type { RequestEvent } from './transport.js';

export interface ApiClientOptions {
  /** e.g. `https://api.robopack.com` or `http://127.0.0.1:4010`; a trailing `/v1` is tolerated. */
  baseUrl: string;
  apiKey: string;
  /** Most requests in flight at once. Default 8. */
  concurrency?: number;
  /** Client-side requests per second (burst = perSecond). Off when absent. */
  rateLimit?: { perSecond: number };
  /** Per-request timeout in ms. Default 30000. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Injected undici dispatcher; else the client creates and owns a Pool for the origin. */
  dispatcher?: Dispatcher;
  random?: () => number;
  sleep?: Sleep;
  clock?: Clock;
  onRequest?: (e: RequestEvent) => void;
}

/** List operations whose only argument is a paging query. */
export type PagedListOperation = 'searchApps' | 'listShowcasedApps' | 'listVerifiedApps' | 'listTemplates' | 'listPackages' | 'listFlows' | 'listTenants';
export type ItemOf<K extends PagedListOperation> = Awaited<ReturnType<PacksyncApi[K]>> extends Page<infer T> ? T : never;
export type QueryOf<K extends PagedListOperation> = Omit<NonNullable<Parameters<PacksyncApi[K]>[0]>, 'page' | 'itemsPerPage' | 'disablePaging'>;

const enc = encodeURIComponent;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export class ApiClient implements PacksyncApi {
  private readonly http: HttpTransport;

  constructor(opts: ApiClientOptions) {
    this.http = new HttpTransport({
      baseUrl: opts.baseUrl,
      apiKey: opts.apiKey,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.sleep ? { sleep: opts.sleep } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
    });
  }

  /** The service's clock from the newest `Date` header it sent, or null before any answer. */
  serviceTime(): Date | null {
    return this.http.serviceTime();
  }

  /** Closes the connection pool the client created (an injected dispatcher stays open). */
  close(): Promise<void> {
    return this.http.close();
  }

  // ------------------------------------------------------------ plumbing

  private send(
    operation: OperationName,
    method: HttpMethod,
    path: string,
    opts: CallOptions | undefined,
    extra: { query?: object | undefined; body?: unknown; binary?: Uint8Array; idempotent?: boolean; accept?: string } = {},
  ): Promise<HttpResponse> {
    return this.http.request({
      operation,
      method,
      path,
      query: extra.query,
      ...(extra.body !== undefined ? { body: extra.body } : {}),
      ...(extra.binary !== undefined ? { binary: extra.binary } : {}),
      ...(extra.accept !== undefined ? { accept: extra.accept } : {}),
      signal: opts?.signal,
      idempotent: extra.idempotent ?? method !== 'POST',
    });
  }

  private json(operation: OperationName, res: HttpResponse): unknown {
    const text = res.body.toString('utf8');
    if (text.trim() === '') throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: empty body`, { operation, status: res.status });
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: body is not JSON`, { operation, status: res.status, cause: e });
    }
  }

  private object<T>(operation: OperationName, res: HttpResponse): T {
    const body = this.json(operation, res);
    if (!isObject(body)) throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: expected a JSON object`, { operation, status: res.status });
    return body as T;
  }

  private async getObject<T>(operation: OperationName, path: string, opts?: CallOptions): Promise<T> {
    return this.object<T>(operation, await this.send(operation, 'GET', path, opts));
  }

  private async getList<T>(operation: OperationName, path: string, query: object | undefined, opts?: CallOptions): Promise<Page<T>> {
    const res = await this.send(operation, 'GET', path, opts, { query });
    const items = readList<T>(this.json(operation, res), operation);
    return { items, pagination: parsePaginationHeader(firstHeader(res.headers, 'x-pagination')) };
  }

  private async getBinary(operation: OperationName, path: string, query: object | undefined, opts?: CallOptions): Promise<BinaryResponse> {
    const res = await this.send(operation, 'GET', path, opts, { query, accept: '*/*' });
    return {
      contentType: firstHeader(res.headers, 'content-type') ?? 'application/octet-stream',
      fileName: parseContentDisposition(res.headers['content-disposition']),
      body: res.body,
    };
  }

  private async postId(operation: OperationName, path: string, opts: CallOptions | undefined, extra: { query?: object; body?: unknown }): Promise<Uuid> {
    const res = await this.send(operation, 'POST', path, opts, { ...extra, idempotent: false });
    return readIdText(res.body.toString('utf8'), operation);
  }

  /** A bodiless action POST; `idempotent` says whether a lost answer may be repeated blindly. */
  private async action(operation: OperationName, path: string, idempotent: boolean, opts?: CallOptions): Promise<void> {
    await this.send(operation, 'POST', path, opts, { idempotent });
  }

  // ------------------------------------------------------------ iteration

  /** Every item of a paged list, e.g. `client.iterateAll('listPackages', { search: 'x' })`. */
  iterateAll<K extends PagedListOperation>(op: K, query?: QueryOf<K>, opts: CallOptions & IterateOptions = {}): AsyncGenerator<ItemOf<K>, void, undefined> {
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
    return this.getList('searchApps', '/v1/app', query, opts);
  }

  listShowcasedApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>> {
    return this.getList('listShowcasedApps', '/v1/app/showcase', query, opts);
  }

  listVerifiedApps(query?: AppQuery, opts?: CallOptions): Promise<Page<V1AppViewModel>> {
    return this.getList('listVerifiedApps', '/v1/app/verified', query, opts);
  }

  getApp(id: Uuid, opts?: CallOptions): Promise<V1AppDetailsViewModel> {
    return this.getObject('getApp', `/v1/app/${enc(id)}`, opts);
  }

  importApp(appId: Uuid, query?: ImportQuery, opts?: CallOptions): Promise<Uuid> {
    return this.postId('importApp', `/v1/app/import/${enc(appId)}`, opts, query ? { query } : {});
  }

  // ------------------------------------------------------------ script templates

  listTemplates(query?: PagingQuery, opts?: CallOptions): Promise<Page<ConfigurationTemplateViewModel>> {
    return this.getList('listTemplates', '/v1/template', query, opts);
  }

  getTemplate(id: Uuid, opts?: CallOptions): Promise<ConfigurationTemplateDetailsViewModel> {
    return this.getObject('getTemplate', `/v1/template/${enc(id)}`, opts);
  }

  getTemplateBanner(id: Uuid, opts?: CallOptions): Promise<BinaryResponse> {
    return this.getBinary('getTemplateBanner', `/v1/template/${enc(id)}/banner`, undefined, opts);
  }

  getTemplateLogo(id: Uuid, opts?: CallOptions): Promise<BinaryResponse> {
    return this.getBinary('getTemplateLogo', `/v1/template/${enc(id)}/logo`, undefined, opts);
  }

  // ------------------------------------------------------------ packages

  async listPackages(query?: PackageQuery, opts?: CallOptions): Promise<Page<V1PackageViewModel>> {
    const page = await this.getList<V1PackageViewModel>('listPackages', '/v1/package', query, opts);
    return { ...page, items: page.items.map((p) => normalizePackage(p)) };
  }

  async getPackage(id: Uuid, opts?: CallOptions): Promise<V1PackageDetailsViewModel> {
    return normalizePackage(await this.getObject<V1PackageDetailsViewModel>('getPackage', `/v1/package/${enc(id)}`, opts));
  }

  downloadPackage(id: Uuid, query?: DownloadQuery, opts?: CallOptions): Promise<BinaryResponse> {
    return this.getBinary('downloadPackage', `/v1/package/${enc(id)}/download`, query, opts);
  }

  getPackageDocumentationPdf(id: Uuid, opts?: CallOptions): Promise<BinaryResponse> {
    return this.getBinary('getPackageDocumentationPdf', `/v1/package/${enc(id)}/documentation/pdf`, undefined, opts);
  }

  async createPackage(body: V1PackageCreateViewModel, opts?: CallOptions): Promise<V1PackageViewModel> {
    const res = await this.send('createPackage', 'POST', '/v1/package/create', opts, { body, idempotent: false });
    const pkg = this.object<V1PackageViewModel>('createPackage', res);
    if (typeof pkg.id !== 'string' || pkg.id.trim() === '') {
      throw new ApiError('API_INVALID_RESPONSE', 'createPackage: invalid response: no id in the created package', { operation: 'createPackage', status: res.status });
    }
    return normalizePackage(pkg);
  }

  async uploadContentChunk(id: Uuid, query: ChunkQuery, chunk: Uint8Array, opts?: CallOptions): Promise<void> {
    const q = { index: query.index, size: query.size, offset: query.offset, chunk: query.chunk };
    // Safe to repeat: the same index/offset/bytes rewrite the same range.
    await this.send('uploadContentChunk', 'POST', `/v1/package/content/${enc(id)}`, opts, { query: q, binary: chunk, idempotent: true });
  }

  async finalizeContent(id: Uuid, body: UploadPackageContentFinalizeViewModel, opts?: CallOptions): Promise<void> {
    // Safe to repeat: finalizing the same file list twice describes the same content.
    await this.send('finalizeContent', 'POST', `/v1/package/content/${enc(id)}/finalize`, opts, { body, idempotent: true });
  }

  uploadContentDirectory(id: Uuid, dir: string, opts?: UploadDirectoryOptions): Promise<UploadFileInfoViewModel[]> {
    return uploadContentDirectory(this, id, dir, opts);
  }

  // ------------------------------------------------------------ flows

  listFlows(query?: FlowQuery, opts?: CallOptions): Promise<Page<V1FlowViewModel>> {
    return this.getList('listFlows', '/v1/flow', query, opts);
  }

  async getFlow(id: Uuid, opts?: CallOptions): Promise<V1FlowDetailsViewModel> {
    return normalizeFlowDetails(await this.getObject<V1FlowDetailsViewModel>('getFlow', `/v1/flow/${enc(id)}`, opts));
  }

  createFlow(body: V1FlowCreateViewModel, opts?: CallOptions): Promise<Uuid> {
    return this.postId('createFlow', '/v1/flow/create', opts, { body });
  }

  addDeployment(flowId: Uuid, body: V1FlowAddDeploymentViewModel, opts?: CallOptions): Promise<Uuid> {
    return this.postId('addDeployment', `/v1/flow/${enc(flowId)}/add-deployment`, opts, { body });
  }

  async deleteFlow(id: Uuid, query?: DeleteQuery, opts?: CallOptions): Promise<void> {
    await this.send('deleteFlow', 'DELETE', `/v1/flow/${enc(id)}`, opts, { query });
  }

  // ------------------------------------------------------------ deployments

  async getDeployment(id: Uuid, opts?: CallOptions): Promise<V1DeploymentViewModel> {
    return normalizeDeployment(await this.getObject<V1DeploymentViewModel>('getDeployment', `/v1/flow/deployment/${enc(id)}`, opts));
  }

  async deleteDeployment(id: Uuid, query?: DeleteQuery, opts?: CallOptions): Promise<void> {
    await this.send('deleteDeployment', 'DELETE', `/v1/flow/deployment/${enc(id)}`, opts, { query });
  }

  /** Safe to repeat: a second start of a started deployment answers 409, which callers check. */
  startDeployment(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.action('startDeployment', `/v1/flow/deployment/${enc(id)}/start`, true, opts);
  }

  stopDeployment(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.action('stopDeployment', `/v1/flow/deployment/${enc(id)}/stop`, true, opts);
  }

  refreshDeployment(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.action('refreshDeployment', `/v1/flow/deployment/${enc(id)}/refresh`, true, opts);
  }

  /** NOT safe to repeat: a duplicate skip-wave skips two waves. */
  skipWave(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.action('skipWave', `/v1/flow/deployment/${enc(id)}/skip-wave`, false, opts);
  }

  /** NOT safe to repeat: each call starts another background content update. */
  updateContent(id: Uuid, opts?: CallOptions): Promise<void> {
    return this.action('updateContent', `/v1/flow/deployment/${enc(id)}/update-content`, false, opts);
  }

  // ------------------------------------------------------------ waves

  getWave(id: Uuid, opts?: CallOptions): Promise<V1WaveDetailsViewModel> {
    return this.getObject('getWave', `/v1/flow/wave/${enc(id)}`, opts);
  }

  getWaveLive(id: Uuid, opts?: CallOptions): Promise<V1WaveLiveDataViewModel> {
    return this.getObject('getWaveLive', `/v1/flow/wave/${enc(id)}/live`, opts);
  }

  // ------------------------------------------------------------ tenants

  listTenants(query?: PagingQuery, opts?: CallOptions): Promise<Page<V1TenantViewModel>> {
    return this.getList('listTenants', '/v1/tenant', query, opts);
  }

  getTenant(id: Uuid, opts?: CallOptions): Promise<V1TenantDetailsViewModel> {
    return this.getObject('getTenant', `/v1/tenant/${enc(id)}`, opts);
  }

  /** NOT safe to repeat: each call creates another upload task. */
  async uploadToTenant(tenantId: Uuid, query: TenantUploadQuery, opts?: CallOptions): Promise<V1TaskViewModel> {
    const res = await this.send('uploadToTenant', 'POST', `/v1/tenant/${enc(tenantId)}/upload`, opts, { query, idempotent: false });
    const task = this.object<V1TaskViewModel>('uploadToTenant', res);
    if (typeof task.id !== 'string' || task.id.trim() === '') {
      throw new ApiError('API_INVALID_RESPONSE', 'uploadToTenant: invalid response: no id in the upload task', { operation: 'uploadToTenant', status: res.status });
    }
    return normalizeTask(task);
  }

  async getUploadTask(uploadId: Uuid, opts?: CallOptions): Promise<V1TaskViewModel> {
    return normalizeTask(await this.getObject<V1TaskViewModel>('getUploadTask', `/v1/tenant/upload/${enc(uploadId)}`, opts));
  }

  async listTenantUploads(tenantId: Uuid, query?: PagingQuery, opts?: CallOptions): Promise<Page<V1TaskViewModel>> {
    const page = await this.getList<V1TaskViewModel>('listTenantUploads', `/v1/tenant/${enc(tenantId)}/uploads`, query, opts);
    return { ...page, items: page.items.map((t) => normalizeTask(t)) };
  }

  // ------------------------------------------------------------ radar

  listRadarApps(tenantId: Uuid, query?: RadarQuery, opts?: CallOptions): Promise<Page<V1RadarAppViewModel>> {
    return this.getList('listRadarApps', `/v1/tenant/${enc(tenantId)}/radar`, query, opts);
  }

  async listRadarAppDevices(tenantId: Uuid, appId: Uuid, opts?: CallOptions): Promise<V1RadarDeviceViewModel[]> {
    return (await this.getList<V1RadarDeviceViewModel>('listRadarAppDevices', `/v1/tenant/${enc(tenantId)}/radar/${enc(appId)}/devices`, undefined, opts)).items;
  }

  async listRadarEntryDevices(tenantId: Uuid, entryId: Uuid, opts?: CallOptions): Promise<V1RadarDeviceViewModel[]> {
    return (await this.getList<V1RadarDeviceViewModel>('listRadarEntryDevices', `/v1/tenant/${enc(tenantId)}/radar/entry/${enc(entryId)}/devices`, undefined, opts))
      .items;
  }
}

export function createApiClient(opts: ApiClientOptions): ApiClient {
  return new ApiClient(opts);
}
