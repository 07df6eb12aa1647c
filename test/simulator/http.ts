/** Raw HTTP helpers for simulator tests: no packsync client in between. */
import { startSimulator } from '../../src/simulator/server.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/server.js';

export interface Raw {
  sim: Simulator;
  key: string;
  call: (
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<{ status: number; headers: Headers; json: unknown; text: string; bytes: Buffer }>;
  ok: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
}

export async function rawSim(opts: SimulatorOptions = {}): Promise<Raw> {
  const key = 'k-test';
  const sim = await startSimulator({ port: 0, fleet: 'small', ...opts, apiKeys: [key, ...(opts.apiKeys ?? [])] });
  const call: Raw['call'] = async (method, path, body, headers = {}) => {
    const isBuf = Buffer.isBuffer(body);
    const res = await fetch(`${sim.url}${path}`, {
      method,
      headers: {
        'X-API-Key': key,
        ...(body !== undefined ? { 'content-type': isBuf ? 'application/octet-stream' : 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: isBuf ? body : JSON.stringify(body) } : {}),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    let json: unknown = undefined;
    if (/json/.test(res.headers.get('content-type') ?? '') && text) json = JSON.parse(text);
    return { status: res.status, headers: res.headers, json, text, bytes };
  };
  const ok = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await call(method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.json as T;
  };
  return { sim, key, call, ok };
}
