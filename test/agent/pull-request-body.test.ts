/**
 * A pull request body each forge accepts, and a forge's refusal in its own words
 * (src/agent/notify/pull-request.ts). Regression: the body was cut at 60,000 characters for every
 * forge, and Azure DevOps answers 400 to a description over 4,000, so an update's pull request could
 * never be opened there once the plan grew (a re-run failed the same way); the error said only "HTTP 400".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fitBody, openOrUpdate } from '../../src/agent/notify/pull-request.js';
import { forgeProvider } from '../support/forge.js';

interface Forge {
  url: string;
  posted: Record<string, unknown>[];
  close: () => Promise<void>;
}

/** Azure DevOps' and GitHub's pull request routes as far as opening one goes, with ADO's 4,000-character rule and GitHub's 422 shape. */
async function startForge(): Promise<Forge> {
  const posted: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (b: Buffer) => (text += b.toString()));
    req.on('end', () => {
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.method === 'GET') return send(200, req.url!.includes('/_apis/') ? { value: [], count: 0 } : []);
      const body = JSON.parse(text) as Record<string, unknown>;
      posted.push(body);
      if (typeof body.description === 'string' && body.description.length > 4000)
        return send(400, {
          $id: '1',
          message: 'A description for a pull request must not be longer than 4000 characters.',
          typeKey: 'InvalidArgumentValueException',
        });
      if (req.url!.startsWith('/repos/') && body.head === 'taken')
        return send(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', message: 'A pull request already exists for acme:taken.' }],
        });
      return send(201, { pullRequestId: 1, number: 1 });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const LONG = `| Package | From | To |\n|---|---|---|\n${'| Package/app | 1.0 | 1.1 |\n'.repeat(400)}`;

let forge: Forge;
beforeEach(async () => {
  forge = await startForge();
});
afterEach(async () => {
  await forge.close();
});

describe('a pull request body each forge accepts', () => {
  it('ado-description-over-4000: Azure DevOps gets at most 4,000 characters, cut at a line with a note; GitHub the whole body', async () => {
    expect(LONG.length).toBeGreaterThan(10_000);
    const pr = { branch: 'packsync/update/apps', base: 'main', title: 'Update apps', body: LONG };
    expect(await openOrUpdate(forgeProvider('azuredevops', `${forge.url}/org`), pr)).toBe('opened');
    const description = forge.posted[0]!.description as string;
    expect(description.length).toBeLessThanOrEqual(4000);
    expect(description.startsWith('| Package | From | To |\n')).toBe(true);
    expect(description).toMatch(
      /\| 1\.1 \|\n\n… \(cut at this forge's limit of 4,000 characters; run `packsync plan` on the branch for all of it\)\n$/,
    );
    expect(await openOrUpdate(forgeProvider('github', forge.url), pr)).toBe('opened');
    expect(forge.posted[1]!.body).toBe(LONG);
  });

  it("a refusal quotes the forge's message (GitHub's errors too), never the token", async () => {
    const e = await openOrUpdate(forgeProvider('github', forge.url), { branch: 'taken', base: 'main', title: 't', body: 'b' }).catch(
      (x: unknown) => x as Error,
    );
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toContain('answered 422 (HTTP 422): Validation Failed; A pull request already exists for acme:taken.');
    expect((e as Error).message).not.toContain('tok-SECRET-1');
  });

  it('fitBody leaves a body within the limit alone and never exceeds the limit', () => {
    expect(fitBody('short', 4000)).toBe('short');
    for (const limit of [200, 4000, 9999]) expect(fitBody(LONG, limit).length).toBeLessThanOrEqual(limit);
  });
});
