/** GitLab (docs/agent.md, "Commit status"; docs/manifests.md, "Version policy"): commit statuses and merge requests. */
import { firstId, JSON_HEADERS } from '../provider-types.js';
import type { Provider, ProviderKind } from '../provider-types.js';

const base = (p: Provider): string => (p.address ?? 'https://gitlab.com/api/v4').replace(/\/$/, '');
const apiHeaders = (p: Provider): Record<string, string> => ({ ...JSON_HEADERS, 'private-token': p.token ?? '' });

export const gitlab: ProviderKind = {
  type: 'gitlab',
  // GitLab's merge request description: 1,048,576 characters.
  bodyLimit: 1_000_000,
  check: (p) => (p.token ? null : `provider "${p.name}" (gitlab) needs tokenFile`),
  apiHeaders,
  commitStatus: (p, repository, sha, state, { description, targetUrl }) => {
    // GitLab's states: a pass in progress is `running`, a failed one `failed`.
    const s = state === 'pending' ? 'running' : state === 'failure' ? 'failed' : 'success';
    return {
      url: `${base(p)}/projects/${encodeURIComponent(repository)}/statuses/${sha}`,
      headers: apiHeaders(p),
      body: JSON.stringify({ state: s, name: `packsync/${p.name}`, description, ...(targetUrl ? { target_url: targetUrl } : {}) }),
    };
  },
  pullRequest: async (p, pr, call) => {
    const mrs = `${base(p)}/projects/${encodeURIComponent(p.repository!)}/merge_requests`;
    const found = firstId(await call({ method: 'GET', url: `${mrs}?state=opened&source_branch=${encodeURIComponent(pr.branch)}` }), 'iid');
    if (found !== undefined) await call({ method: 'PUT', url: `${mrs}/${found}`, body: { title: pr.title, description: pr.body } });
    else
      await call({
        method: 'POST',
        url: mrs,
        body: { source_branch: pr.branch, target_branch: pr.base, title: pr.title, description: pr.body },
      });
    return found === undefined ? 'opened' : 'updated';
  },
  pullRequestExists: async (p, branch, call) => {
    const mrs = `${base(p)}/projects/${encodeURIComponent(p.repository!)}/merge_requests`;
    return firstId(await call({ method: 'GET', url: `${mrs}?state=all&source_branch=${encodeURIComponent(branch)}` }), 'iid') !== undefined;
  },
};
