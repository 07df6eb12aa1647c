/** Raw HTTP helpers for simulator tests: no packsync client in between. */
import { startTestSimulator } from '../support/sim.js';
import type { SimStartOptions, TestSim } from '../support/sim.js';

export interface Raw {
  sim: TestSim;
  key: string;
  call: (
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<{ status: number; headers: Headers; json: unknown; text: string; bytes: Buffer }>;
  ok: <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;
}

/** The simulator in real time (time x1) unless asked otherwise: these tests drive its clock themselves. */
export async function rawSim(opts: SimStartOptions = {}): Promise<Raw> {
  const sim = await startTestSimulator({ timeScale: 1, ...opts });
  const key = sim.key;
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
