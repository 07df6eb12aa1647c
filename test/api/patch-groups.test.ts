/**
 * Patch groups by name (api/patch-groups.ts): the simulator lists its own (fixtures), a service
 * without the list (the v1 API: an unknown route) gives null, never an error of the pass.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await sim?.close();
  await close?.();
  sim = undefined;
  close = undefined;
});

/** A service that answers every request with `status` and `body` (and counts what it was asked). */
async function service(status: number, body: string): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url} ${String(req.headers['x-api-key'])}`);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

describe('patch groups by name', () => {
  it("are the simulator's fixtures, ids lower-case, with the base address's /v1 or without", async () => {
    sim = await startTestSimulator();
    for (const baseUrl of [sim.url, `${sim.url}/v1`]) {
      const api = createApiClient({ baseUrl, apiKey: sim.key });
      const groups = await api.listPatchGroups();
      await api.close();
      expect(groups?.find((g) => g.name === 'Pilot first')?.id).toBe('2e346735-40e0-4c05-9733-4aece1ad5b00');
      expect(groups?.every((g) => g.id === g.id.toLowerCase())).toBe(true);
    }
  });

  it('are null where the service has no such list (404), asked once with the key', async () => {
    const s = await service(404, '{"title":"Not Found","status":404}');
    const api = createApiClient({ baseUrl: s.url, apiKey: 'k-1' });
    expect(await api.listPatchGroups()).toBeNull();
    await api.close();
    expect(s.paths).toEqual(['GET /_sim/fixtures k-1']);
  });

  it('are null when the answer is not a list of them', async () => {
    const s = await service(200, '<html>portal</html>');
    const api = createApiClient({ baseUrl: s.url, apiKey: 'k' });
    expect(await api.listPatchGroups()).toBeNull();
    await api.close();
  });
});
