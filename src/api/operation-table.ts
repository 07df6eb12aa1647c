/**
 * The API's operations in one table: method, route and whether a repeat is safe. The client takes its
 * retry safety from here (`responses.ts`); `test/api/operation-table.test.ts` checks the client's
 * requests, the simulator's routes and the retry table of docs/errors.md against it, so the three
 * cannot drift apart (docs/architecture.md, "How to add an API operation").
 */
import type { OperationName } from './operations.js';

export type HttpVerb = 'GET' | 'POST' | 'DELETE';

export interface OperationSpec {
  method: HttpVerb;
  /** The route with `{name}` for each path parameter. */
  path: string;
  /**
   * A lost answer may be repeated blindly. GET and DELETE always are (a repeated delete that already
   * took effect answers 404, which callers treat as done); a POST only when twice equals once.
   */
  idempotent: boolean;
}

const get = (path: string): OperationSpec => ({ method: 'GET', path, idempotent: true });
const del = (path: string): OperationSpec => ({ method: 'DELETE', path, idempotent: true });
const post = (path: string, idempotent: boolean): OperationSpec => ({ method: 'POST', path, idempotent });

export const OPERATIONS: Readonly<Record<OperationName, OperationSpec>> = {
  searchApps: get('/v1/app'),
  listShowcasedApps: get('/v1/app/showcase'),
  listVerifiedApps: get('/v1/app/verified'),
  getApp: get('/v1/app/{id}'),
  importApp: post('/v1/app/import/{appId}', false),
  listTemplates: get('/v1/template'),
  getTemplate: get('/v1/template/{id}'),
  getTemplateBanner: get('/v1/template/{id}/banner'),
  getTemplateLogo: get('/v1/template/{id}/logo'),
  listPackages: get('/v1/package'),
  getPackage: get('/v1/package/{id}'),
  downloadPackage: get('/v1/package/{id}/download'),
  getPackageDocumentationPdf: get('/v1/package/{id}/documentation/pdf'),
  createPackage: post('/v1/package/create', false),
  // The same index, offset and bytes rewrite the same range of the same file.
  uploadContentChunk: post('/v1/package/content/{id}', true),
  // The same file list describes the same content.
  finalizeContent: post('/v1/package/content/{id}/finalize', true),
  listFlows: get('/v1/flow'),
  getFlow: get('/v1/flow/{id}'),
  createFlow: post('/v1/flow/create', false),
  addDeployment: post('/v1/flow/{id}/add-deployment', false),
  deleteFlow: del('/v1/flow/{id}'),
  getDeployment: get('/v1/flow/deployment/{id}'),
  deleteDeployment: del('/v1/flow/deployment/{id}'),
  // A duplicate start or stop answers 409; the caller re-reads the deployment.
  startDeployment: post('/v1/flow/deployment/{id}/start', true),
  stopDeployment: post('/v1/flow/deployment/{id}/stop', true),
  refreshDeployment: post('/v1/flow/deployment/{id}/refresh', true),
  // A duplicate skip-wave skips two waves; a duplicate update-content pushes to every tenant again.
  skipWave: post('/v1/flow/deployment/{id}/skip-wave', false),
  updateContent: post('/v1/flow/deployment/{id}/update-content', false),
  getWave: get('/v1/flow/wave/{id}'),
  getWaveLive: get('/v1/flow/wave/{id}/live'),
  listTenants: get('/v1/tenant'),
  getTenant: get('/v1/tenant/{id}'),
  uploadToTenant: post('/v1/tenant/{id}/upload', false),
  getUploadTask: get('/v1/tenant/upload/{uploadId}'),
  listTenantUploads: get('/v1/tenant/{tenantId}/uploads'),
  listRadarApps: get('/v1/tenant/{tenantId}/radar'),
  listRadarAppDevices: get('/v1/tenant/{tenantId}/radar/{appId}/devices'),
  listRadarEntryDevices: get('/v1/tenant/{tenantId}/radar/entry/{entryId}/devices'),
};

/** A regular expression matching the concrete paths of a route (`{id}` → one path segment). */
export function routePattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}
