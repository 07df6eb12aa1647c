/**
 * From an operation to its decoded answer: `Calls` sends one request over the transport and reads
 * the body into the shape the operation promises (a JSON object, a page, a binary, a new id, or
 * nothing). The readers are strict about what the client relies on (JSON, an object, an id) and
 * tolerant about the rest (`tolerant.ts`), and every failure is `API_INVALID_RESPONSE` naming the
 * operation. Whether a request is safe to repeat is the operation table's to say (`operation-table.ts`).
 */
import { ApiError } from './errors.js';
import { redactValue } from '../util/secrets.js';
import { firstHeader, parseContentDisposition } from './http-encoding.js';
import type { HttpMethod, HttpResponse } from './http-encoding.js';
import type { BinaryResponse, CallOptions, OperationName, Page } from './operations.js';
import { parsePaginationHeader } from './paging.js';
import { readIdText, readList } from './tolerant.js';
import type { HttpTransport } from './transport.js';
import { OPERATIONS } from './operation-table.js';
import type { Uuid } from './wire/index.js';
import { isRecord } from '../util/records.js';

/** The body as JSON; an empty or non-JSON body is an invalid response. */
export function readJson(operation: OperationName, res: HttpResponse): unknown {
  const text = res.body.toString('utf8');
  if (text.trim() === '')
    throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: empty body`, { operation, status: res.status });
  try {
    const parsed = JSON.parse(text) as unknown;
    return res.echoes ? redactValue(parsed, res.echoes) : parsed;
  } catch (e) {
    throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: body is not JSON`, {
      operation,
      status: res.status,
      cause: e,
    });
  }
}

/** The body as a JSON object (fields are not checked: readers downstream are tolerant). */
export function readObject<T>(operation: OperationName, res: HttpResponse): T {
  const body = readJson(operation, res);
  if (!isRecord(body))
    throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: expected a JSON object`, { operation, status: res.status });
  return body as T;
}

/**
 * A created object returned whole (package, upload task): callers go on to use its id, so an answer
 * without one is refused at the boundary.
 */
export function readCreated<T extends { id: Uuid }>(operation: OperationName, res: HttpResponse, what: string): T {
  const created = readObject<T>(operation, res);
  if (typeof created.id !== 'string' || created.id.trim() === '') {
    throw new ApiError('API_INVALID_RESPONSE', `${operation}: invalid response: no id in ${what}`, { operation, status: res.status });
  }
  return created;
}

/** A page: the list (bare array or `{items}`) plus the `X-Pagination` header when readable. */
export function readPage<T>(operation: OperationName, res: HttpResponse): Page<T> {
  const items = readList<T>(readJson(operation, res), operation);
  return { items, pagination: parsePaginationHeader(firstHeader(res.headers, 'x-pagination')) };
}

/** A file download: its type, the name the server gives it, and the bytes. */
export function readBinary(res: HttpResponse): BinaryResponse {
  return {
    contentType: firstHeader(res.headers, 'content-type') ?? 'application/octet-stream',
    fileName: parseContentDisposition(res.headers['content-disposition']),
    body: res.body,
  };
}

export interface SendExtra {
  query?: object | undefined;
  body?: unknown;
  binary?: Uint8Array;
  accept?: string;
}

/** One request per call, decoded; the operations of `ApiClient` are one line each over these. */
export class Calls {
  constructor(private readonly http: HttpTransport) {}

  send(
    operation: OperationName,
    method: HttpMethod,
    path: string,
    opts: CallOptions | undefined,
    extra: SendExtra = {},
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
      idempotent: OPERATIONS[operation].idempotent,
    });
  }

  async getObject<T>(operation: OperationName, path: string, opts?: CallOptions): Promise<T> {
    return readObject<T>(operation, await this.send(operation, 'GET', path, opts));
  }

  async getList<T>(operation: OperationName, path: string, query: object | undefined, opts?: CallOptions): Promise<Page<T>> {
    return readPage<T>(operation, await this.send(operation, 'GET', path, opts, { query }));
  }

  async getBinary(operation: OperationName, path: string, query: object | undefined, opts?: CallOptions): Promise<BinaryResponse> {
    return readBinary(await this.send(operation, 'GET', path, opts, { query, accept: '*/*' }));
  }

  /** A create answered by the new object's id (bare JSON string, `{id}`, or unquoted text). */
  async postId(
    operation: OperationName,
    path: string,
    opts: CallOptions | undefined,
    extra: { query?: object; body?: unknown },
  ): Promise<Uuid> {
    const res = await this.send(operation, 'POST', path, opts, extra);
    return readIdText(res.body.toString('utf8'), operation);
  }

  /** A bodiless action POST. */
  async action(operation: OperationName, path: string, opts?: CallOptions): Promise<void> {
    await this.send(operation, 'POST', path, opts);
  }
}
