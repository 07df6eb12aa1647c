/**
 * API answers are read with a limit (issue 20.10, security review 3 finding 11; docs/errors.md): an
 * answer larger than `maxResponseBytes` is cut while it streams — never buffered whole — and the call
 * fails once with API_INVALID_RESPONSE naming the operation (regression: a 400 MB list answer was
 * buffered, then the process aborted out of memory). The server here streams a list that never ends:
 * without the limit the call would never return. Through the CLI, `plan` exits 1 and the env var
 * PACKSYNC_MAX_RESPONSE_BYTES sets the limit.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';

let server: Server | undefined;
let requests = 0;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** A service whose every answer is a JSON array that never ends (and never says its length). */
async function endlessService(): Promise<string> {
  requests = 0;
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const chunk = `${JSON.stringify({ id: '00000000-0000-0000-0000-000000000000', name: 'x'.repeat(1000) })},`.repeat(64);
    const more = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', more);
    };
    more();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('an API answer larger than the limit', () => {
  it('is cut while it streams: one API_INVALID_RESPONSE naming the operation, no retry', async () => {
    const api = createApiClient({ baseUrl: await endlessService(), apiKey: 'k', maxResponseBytes: 256 * 1024 });
    try {
      const e = await api.listPackages().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe('API_INVALID_RESPONSE');
      expect((e as ApiError).operation).toBe('listPackages');
      expect(requests).toBe(1);
    } finally {
      await api.close();
    }
  });

  it('makes plan exit 1 with the limit from PACKSYNC_MAX_RESPONSE_BYTES', async () => {
    const url = await endlessService();
    const repo = await writeRepo();
    const env = {
      PACKSYNC_API_URL: url,
      PACKSYNC_API_KEY: 'k',
      PACKSYNC_STATE_DIR: await tempDir('packsync-state-'),
      PACKSYNC_MAX_RESPONSE_BYTES: '1048576',
    };
    const r = await cli(['plan', repo], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('API_INVALID_RESPONSE');
  });
});
