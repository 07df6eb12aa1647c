/** GitHub (docs/agent.md, "Commit status"; docs/manifests.md, "Version policy"): commit statuses and pull requests. */
import { firstId, JSON_HEADERS, ownerRepo } from '../provider-types.js';
import type { Provider, ProviderKind } from '../provider-types.js';

const base = (p: Provider): string => (p.address ?? 'https://api.github.com').replace(/\/$/, '');

const apiHeaders = (p: Provider): Record<string, string> => ({
  ...JSON_HEADERS,
  accept: 'application/vnd.github+json',
  authorization: `Bearer ${p.token ?? ''}`,
  'x-github-api-version': '2022-11-28',
});

export const github: ProviderKind = {
  type: 'github',
  // GitHub's pull request body: 65,536 characters.
  bodyLimit: 65_536,
  check: (p) => (p.token ? null : `provider "${p.name}" (github) needs tokenFile`),
  apiHeaders,
  commitStatus: (p, repository, sha, state, { description, targetUrl }) => {
    const [owner, repo] = ownerRepo(repository);
    return {
      url: `${base(p)}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/statuses/${sha}`,
      headers: apiHeaders(p),
      body: JSON.stringify({ state, context: `packsync/${p.name}`, description, ...(targetUrl ? { target_url: targetUrl } : {}) }),
    };
  },
  pullRequest: async (p, pr, call) => {
    const [owner, name] = ownerRepo(p.repository!);
    const pulls = `${base(p)}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/pulls`;
    const found = firstId(
      await call({ method: 'GET', url: `${pulls}?state=open&head=${encodeURIComponent(`${owner}:${pr.branch}`)}` }),
      'number',
    );
    if (found !== undefined) await call({ method: 'PATCH', url: `${pulls}/${found}`, body: { title: pr.title, body: pr.body } });
    else await call({ method: 'POST', url: pulls, body: { title: pr.title, head: pr.branch, base: pr.base, body: pr.body } });
    return found === undefined ? 'opened' : 'updated';
  },
  pullRequestExists: async (p, branch, call) => {
    const [owner, name] = ownerRepo(p.repository!);
    const pulls = `${base(p)}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/pulls`;
    return (
      firstId(await call({ method: 'GET', url: `${pulls}?state=all&head=${encodeURIComponent(`${owner}:${branch}`)}` }), 'number') !==
      undefined
    );
  },
};
