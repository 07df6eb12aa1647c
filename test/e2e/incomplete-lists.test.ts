/**
 * Incomplete list answers never duplicate (issue 20, security review 3 finding 4): through a proxy that
 * answers the flow list or a tenant's upload tasks with `[]`, or the package list with upper-case ids, an apply of a converged
 * repository creates nothing (regression: it created a second copy of every flow and package, exit 0,
 * and the originals kept running unseen). Owned objects missing from a list are read by id.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { simEnv } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let env: Record<string, string>;
let proxy: Server | undefined;
beforeEach(async () => {
  ({ sim, env } = await simEnv());
});
afterEach(async () => {
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  proxy = undefined;
  await sim.close();
});

type Mode = 'hideflows' | 'upperids' | 'hideuploads';

/** Forwards to the simulator, rewriting the flow list (empty) or the package list (upper-case ids). */
async function tamperingProxy(mode: Mode): Promise<string> {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const up = await fetch(`${sim.url}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) });
        let text = await up.text();
        const path = (req.url ?? '').split('?')[0];
        if (req.method === 'GET' && path === '/v1/flow' && mode === 'hideflows') text = '[]';
        if (req.method === 'GET' && /^\/v1\/tenant\/[^/]+\/uploads$/.test(path ?? '') && mode === 'hideuploads') text = '[]';
        if (req.method === 'GET' && path === '/v1/package' && mode === 'upperids')
          text = JSON.stringify((JSON.parse(text) as { id: string }[]).map((p) => ({ ...p, id: p.id.toUpperCase() })));
        const out: Record<string, string> = {};
        up.headers.forEach((v, k) => {
          if (
            k !== 'content-length' &&
            k !== 'content-encoding' &&
            k !== 'transfer-encoding' &&
            !(k === 'x-pagination' && mode === 'hideflows' && path === '/v1/flow') &&
            !(k === 'x-pagination' && mode === 'hideuploads' && /\/uploads$/.test(path ?? ''))
          )
            out[k] = v;
        });
        res.writeHead(up.status, out).end(text);
      })();
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

describe('an owned object missing from a list answer', () => {
  for (const mode of ['hideflows', 'upperids', 'hideuploads'] as const) {
    it(`is read by id, never created again (${mode})`, async () => {
      // With a tenant upload: an upload task missing from its tenant's list is read by id, never run again.
      const repo = await writeRepo({ withCustom: true });
      expect((await cli(['apply', repo, '--auto-approve'], env)).code).toBe(0);
      const before = (await sim.journal(true)).length;
      const viaProxy = { ...env, PACKSYNC_API_URL: await tamperingProxy(mode) };
      const r = await cli(['apply', repo, '--auto-approve'], viaProxy);
      expect(r.code).toBe(0);
      const writes = (await sim.journal(true)).slice(before).map((e) => `${e.method} ${e.path}`);
      expect(writes.filter((w) => w.startsWith('POST') && /create|import|\/upload$/.test(w))).toEqual([]);
      const state = await sim.state();
      expect(state.flows.filter((f) => !f.deleted)).toHaveLength(2);
    });
  }
});
