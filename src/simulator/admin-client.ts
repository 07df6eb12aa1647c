/**
 * Calls the simulator's admin surface (`/_sim/...`, same key as `/v1`) from outside: tests,
 * benchmarks and scripts. Plain fetch on purpose: it must not depend on packsync's API client,
 * which is the thing those callers measure and test.
 */
export type SimulatorAdmin = (method: string, path: string, body?: unknown) => Promise<unknown>;

export function simulatorAdmin(url: string, key: string): SimulatorAdmin {
  return async (method, path, body) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
}
