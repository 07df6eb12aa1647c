/**
 * Whether an update branch has ever had a pull/merge request (src/agent/notify/pull-request.ts), asked
 * of each forge in its own request shape over real HTTP: any state counts, so a pull request a person
 * closed is not opened again, and an empty list means none was ever made.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pullRequestExists } from '../../src/agent/notify/pull-request.js';
import { forgeProvider } from '../support/forge.js';
import { startReceiver } from '../support/receiver.js';
import type { Receiver } from '../support/receiver.js';

let rx: Receiver;
beforeEach(async () => {
  rx = await startReceiver();
});
afterEach(async () => {
  await rx.close();
});

describe('pullRequestExists', () => {
  it.each([
    ['github', '', '/repos/acme/manifests/pulls?state=all&head=acme%3Apacksync%2Fupdate%2Futilities', '[{"number":7,"state":"closed"}]'],
    [
      'gitlab',
      '',
      '/projects/acme%2Fmanifests/merge_requests?state=all&source_branch=packsync%2Fupdate%2Futilities',
      '[{"iid":3,"state":"merged"}]',
    ],
    [
      'azuredevops',
      '/org',
      '/org/acme/_apis/git/repositories/manifests/pullrequests?searchCriteria.sourceRefName=refs%2Fheads%2Fpacksync%2Fupdate%2Futilities&searchCriteria.status=all&api-version=7.1',
      '{"value":[{"pullRequestId":12,"status":"abandoned"}],"count":1}',
    ],
  ] as const)('%s: asks for every state; a listed one (even closed) exists, an empty list does not', async (type, prefix, path, listed) => {
    const p = forgeProvider(type, `${rx.url}${prefix}`);
    rx.replies.push(listed, type === 'azuredevops' ? '{"value":[],"count":0}' : '[]');
    expect(await pullRequestExists(p, 'packsync/update/utilities')).toBe(true);
    expect(await pullRequestExists(p, 'packsync/update/utilities')).toBe(false);
    expect(rx.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`GET ${path}`, `GET ${path}`]);
  });

  it('a forge that refuses is an error naming the status, never the token', async () => {
    rx.answer.push(401);
    const e = await pullRequestExists(forgeProvider('github', rx.url), 'packsync/update/utilities').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toContain('401');
    expect((e as Error).message).not.toContain('tok-SECRET-1');
  });
});
