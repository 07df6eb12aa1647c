/**
 * Regression: an apply's peak RSS held ~35 MiB of compiler memory from V8 recompiling undici's
 * WebAssembly HTTP parser with TurboFan, freed at once but kept by glibc's allocator (patch-tuesday's
 * apply 203–216 MiB against its 200 MiB goal). The CLI compiles WebAssembly with Liftoff only
 * (cli/wasm-policy.ts). Measured in a Node process of its own (flags are per process): a few
 * thousand answers through the client's undici pool, V8's peak malloced memory with and without
 * the policy.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const dist = (p: string): string => fileURLToPath(new URL(`../../dist/src/${p}`, import.meta.url));

const PROBE = `
import { createServer } from 'node:http';
import { getHeapStatistics } from 'node:v8';
if (process.argv[1] === 'policy') (await import(${JSON.stringify(dist('cli/wasm-policy.js'))})).baselineWasmOnly();
const { Pool } = await import(${JSON.stringify(dist('api/undici-pool.js'))});
const body = JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: 'id-' + i, name: 'x'.repeat(50) })) });
const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const pool = new Pool('http://127.0.0.1:' + server.address().port, { connections: 8 });
for (let i = 0; i < 400; i++)
  await Promise.all(Array.from({ length: 8 }, async () => (await (await pool.request({ path: '/', method: 'GET' })).body.text()).length));
await pool.close();
server.close();
process.stdout.write(String(getHeapStatistics().peak_malloced_memory / 1048576));
`;

async function peakMallocMiB(policy: boolean): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE, policy ? 'policy' : 'none']);
  return Number(stdout);
}

describe('the CLI’s WebAssembly policy', () => {
  it('keeps the compiler memory of undici’s HTTP parser out of the process', async () => {
    const [without, withPolicy] = await Promise.all([peakMallocMiB(false), peakMallocMiB(true)]);
    // Without it, the parser's TurboFan recompilation: ~40 MiB here.
    expect(without).toBeGreaterThan(20);
    expect(withPolicy).toBeLessThan(12);
  });
});
