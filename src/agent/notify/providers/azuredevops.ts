/** Azure DevOps (docs/agent.md, "Commit status"; docs/manifests.md, "Version policy"): commit statuses and pull requests. */
import { firstId, JSON_HEADERS, ownerRepo } from '../provider-types.js';
import type { Provider, ProviderKind } from '../provider-types.js';

const base = (p: Provider): string => (p.address ?? '').replace(/\/$/, '');
const apiHeaders = (p: Provider): Record<string, string> => ({
  ...JSON_HEADERS,
  authorization: `Basic ${Buffer.from(`:${p.token ?? ''}`).toString('base64')}`,
});

export const azuredevops: ProviderKind = {
  type: 'azuredevops',
  // Azure DevOps refuses a pull request description over 4,000 characters (HTTP 400).
  bodyLimit: 4_000,
  check: (p) =>
    !p.address
      ? `provider "${p.name}" (azuredevops) needs address: the organization URL, e.g. https://dev.azure.com/ORG`
      : p.token
        ? null
        : `provider "${p.name}" (azuredevops) needs tokenFile`,
  apiHeaders,
  commitStatus: (p, repository, sha, state, { description, targetUrl }) => {
    const [owner, repo] = ownerRepo(repository);
    const s = state === 'success' ? 'succeeded' : state === 'failure' ? 'failed' : 'pending';
    return {
      url: `${base(p)}/${encodeURIComponent(owner)}/_apis/git/repositories/${encodeURIComponent(repo)}/commits/${sha}/statuses?api-version=7.1`,
      headers: apiHeaders(p),
      body: JSON.stringify({ state: s, description, context: { genre: 'packsync', name: p.name }, ...(targetUrl ? { targetUrl } : {}) }),
    };
  },
  pullRequest: async (p, pr, call) => {
    const [owner, name] = ownerRepo(p.repository!);
    const prs = `${base(p)}/${encodeURIComponent(owner)}/_apis/git/repositories/${encodeURIComponent(name)}/pullrequests`;
    const q = `searchCriteria.sourceRefName=${encodeURIComponent(`refs/heads/${pr.branch}`)}&searchCriteria.status=active&api-version=7.1`;
    const found = firstId(await call({ method: 'GET', url: `${prs}?${q}` }), 'pullRequestId');
    if (found !== undefined)
      await call({ method: 'PATCH', url: `${prs}/${found}?api-version=7.1`, body: { title: pr.title, description: pr.body } });
    else
      await call({
        method: 'POST',
        url: `${prs}?api-version=7.1`,
        body: { sourceRefName: `refs/heads/${pr.branch}`, targetRefName: `refs/heads/${pr.base}`, title: pr.title, description: pr.body },
      });
    return found === undefined ? 'opened' : 'updated';
  },
  pullRequestExists: async (p, branch, call) => {
    const [owner, name] = ownerRepo(p.repository!);
    const prs = `${base(p)}/${encodeURIComponent(owner)}/_apis/git/repositories/${encodeURIComponent(name)}/pullrequests`;
    const q = `searchCriteria.sourceRefName=${encodeURIComponent(`refs/heads/${branch}`)}&searchCriteria.status=all&api-version=7.1`;
    return firstId(await call({ method: 'GET', url: `${prs}?${q}` }), 'pullRequestId') !== undefined;
  },
};
