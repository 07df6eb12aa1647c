/** A scripted real HTTP server on 127.0.0.1:0 for the API client tests, plus client builders. */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient, ApiClientOptions } from '../../src/api/client.js';

export const KEY = 'sk-test-SECRET-4242-do-not-leak';

export interface Recorded {
  n: number;
  method: string;
  path: string;
  rawQuery: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: Recorded[];
  /** Requests in flight right now, and the most ever seen at once. */
  inFlight: { now: number; max: number };
  close: () => Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const inFlight = { now: 0, max: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const rec: Recorded = {
        n: requests.length + 1,
        method: req.method ?? '',
        path: url.pathname,
        rawQuery: url.search.replace(/^\?/, ''),
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(rec);
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      res.on('close', () => inFlight.now--);
      Promise.resolve(handler(rec, res)).catch((e: unknown) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers });
  res.end(text);
}

export function problem(
  res: ServerResponse,
  status: number,
  title: string,
  headers: Record<string, string> = {},
  extra: object = {},
): void {
  json(res, status, { type: 'about:blank', title, status, traceId: `00-${Math.random().toString(16).slice(2)}-01`, ...extra }, headers);
}

export interface Harness {
  client: ApiClient;
  delays: number[];
}

/** A client whose sleeps are recorded and skipped, with a fixed jitter of 0.5. */
export function makeClient(url: string, opts: Partial<ApiClientOptions> = {}): Harness {
  const delays: number[] = [];
  const client = createApiClient({
    baseUrl: url,
    apiKey: KEY,
    random: () => 0.5,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
    ...opts,
  });
  return { client, delays };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection');
}

export const UUID = '3c8574eb-c0f6-426f-e557-08de6eb82a5e';
export const UUID2 = '152fc3a7-99e0-4c89-021e-08dc33bd3e59';
