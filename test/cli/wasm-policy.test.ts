/**
 * Regression: an apply's peak RSS held ~35 MiB of compiler memory from V8 recompiling undici's
 * WebAssembly HTTP parser with TurboFan, freed at once but kept by glibc's allocator (patch-tuesday's
 * apply 203–216 MiB against its 200 MiB goal). The CLI compiles WebAssembly with Liftoff only
 * (cli/wasm-policy.ts): at run time on Node 20, on the command line in the container image (Node 24,
 * whose V8 ignores the flag at run time). Measured in Node processes of their own (flags are per
 * process): a few thousand answers through the client's undici pool, V8's peak malloced memory.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
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

async function peakMallocMiB(o: { nodeFlags?: string[]; policy?: boolean }): Promise<number> {
  const args = [...(o.nodeFlags ?? []), '--input-type=module', '-e', PROBE, o.policy ? 'policy' : 'none'];
  const { stdout } = await promisify(execFile)(process.execPath, args);
  return Number(stdout);
}

/** The Node flags of the container image's entrypoint (between `node` and the script). */
async function imageNodeFlags(): Promise<string[]> {
  const dockerfile = await readFile(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
  const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
  return entry.slice(entry.indexOf('node') + 1, -1);
}

const major = Number(process.versions.node.split('.')[0]);

/**
 * The baseline without the flag, as the higher of two processes: V8 tiers the parser up on a
 * background thread, and on a loaded machine one short process can end before that finishes
 * (a CI run measured 25.5 MiB once, ~37-40 otherwise). The policy side is measured once.
 */
async function withoutPolicyMiB(): Promise<number> {
  return Math.max(...(await Promise.all([peakMallocMiB({}), peakMallocMiB({})])));
}

describe('the CLI’s WebAssembly policy', () => {
  it('the container image’s flags keep the compiler memory of undici’s HTTP parser out of the process', async () => {
    const flags = await imageNodeFlags();
    expect(flags).toContain('--liftoff-only');
    const [without, image] = await Promise.all([withoutPolicyMiB(), peakMallocMiB({ nodeFlags: flags })]);
    // Without it, the parser's TurboFan recompilation: ~37–40 MiB here (Node 20 and 24).
    expect(without).toBeGreaterThan(28);
    expect(image).toBeLessThan(25);
  });

  // Node 24's V8 ignores the flag set at run time (cli/wasm-policy.ts); its runs check the image's flags above.
  it.runIf(major < 22)('on Node 20 the CLI sets it at run time, before undici compiles its parser', async () => {
    const [without, withPolicy] = await Promise.all([withoutPolicyMiB(), peakMallocMiB({ policy: true })]);
    expect(without).toBeGreaterThan(28);
    expect(withPolicy).toBeLessThan(12);
  });
});
