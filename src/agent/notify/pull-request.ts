/**
 * `packsync update --push REMOTE --pull-request NAME` and the agent's `--update-pull-request NAME`: open,
 * or update when one is already open for the branch, one pull/merge request per pushed branch through a commit-status provider (github, gitlab,
 * azuredevops) of `--notifications FILE` (docs/manifests.md, "Version policy"). The token goes only into
 * the request's auth header, never into output or errors.
 */
import type { Provider } from './config.js';

/** A provider refused or could not be reached; the message never holds the token. */
export class PullRequestError extends Error {}

export interface PullRequest {
  branch: string;
  base: string;
  title: string;
  body: string;
}

interface Call {
  method: string;
  url: string;
  body?: unknown;
}

function headers(p: Provider): Record<string, string> {
  const json = { 'content-type': 'application/json' };
  if (p.type === 'github')
    return {
      ...json,
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${p.token ?? ''}`,
      'x-github-api-version': '2022-11-28',
    };
  if (p.type === 'gitlab') return { ...json, 'private-token': p.token ?? '' };
  return { ...json, authorization: `Basic ${Buffer.from(`:${p.token ?? ''}`).toString('base64')}` };
}

async function call(p: Provider, c: Call): Promise<unknown> {
  const res = await fetch(c.url, {
    method: c.method,
    headers: headers(p),
    ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
  }).catch(() => {
    throw new PullRequestError(`pull request through provider "${p.name}": ${c.method} could not reach the provider`);
  });
  if (!res.ok) {
    const why = res.status === 401 ? 'the token was refused' : res.status === 404 ? 'repository not found' : `HTTP ${res.status}`;
    throw new PullRequestError(
      `pull request through provider "${p.name}": ${c.method} ${new URL(c.url).pathname} answered ${res.status} (${why})`,
    );
  }
  return res.json().catch(() => null);
}

function existing(list: unknown, key: 'number' | 'iid' | 'pullRequestId'): number | undefined {
  const items = Array.isArray(list)
    ? list
    : Array.isArray((list as { value?: unknown } | null)?.value)
      ? (list as { value: unknown[] }).value
      : [];
  const id = (items[0] as Record<string, unknown> | undefined)?.[key];
  return typeof id === 'number' ? id : undefined;
}

/** Opens or updates the pull request of `pr.branch`; returns "opened" or "updated". */
export async function openOrUpdate(p: Provider, pr: PullRequest): Promise<'opened' | 'updated'> {
  const repo = p.repository;
  if (!repo) throw new PullRequestError(`provider "${p.name}" needs repository: owner/repo for --pull-request`);
  const [owner, name] = repo.split('/') as [string, string];
  if (p.type === 'github') {
    const base = `${(p.address ?? 'https://api.github.com').replace(/\/$/, '')}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/pulls`;
    const found = existing(
      await call(p, { method: 'GET', url: `${base}?state=open&head=${encodeURIComponent(`${owner}:${pr.branch}`)}` }),
      'number',
    );
    if (found !== undefined) await call(p, { method: 'PATCH', url: `${base}/${found}`, body: { title: pr.title, body: pr.body } });
    else await call(p, { method: 'POST', url: base, body: { title: pr.title, head: pr.branch, base: pr.base, body: pr.body } });
    return found === undefined ? 'opened' : 'updated';
  }
  if (p.type === 'gitlab') {
    const base = `${(p.address ?? 'https://gitlab.com/api/v4').replace(/\/$/, '')}/projects/${encodeURIComponent(repo)}/merge_requests`;
    const found = existing(
      await call(p, { method: 'GET', url: `${base}?state=opened&source_branch=${encodeURIComponent(pr.branch)}` }),
      'iid',
    );
    if (found !== undefined) await call(p, { method: 'PUT', url: `${base}/${found}`, body: { title: pr.title, description: pr.body } });
    else
      await call(p, {
        method: 'POST',
        url: base,
        body: { source_branch: pr.branch, target_branch: pr.base, title: pr.title, description: pr.body },
      });
    return found === undefined ? 'opened' : 'updated';
  }
  if (p.type === 'azuredevops') {
    const base = `${(p.address ?? '').replace(/\/$/, '')}/${encodeURIComponent(owner)}/_apis/git/repositories/${encodeURIComponent(name)}/pullrequests`;
    const q = `searchCriteria.sourceRefName=${encodeURIComponent(`refs/heads/${pr.branch}`)}&searchCriteria.status=active&api-version=7.1`;
    const found = existing(await call(p, { method: 'GET', url: `${base}?${q}` }), 'pullRequestId');
    if (found !== undefined)
      await call(p, { method: 'PATCH', url: `${base}/${found}?api-version=7.1`, body: { title: pr.title, description: pr.body } });
    else
      await call(p, {
        method: 'POST',
        url: `${base}?api-version=7.1`,
        body: { sourceRefName: `refs/heads/${pr.branch}`, targetRefName: `refs/heads/${pr.base}`, title: pr.title, description: pr.body },
      });
    return found === undefined ? 'opened' : 'updated';
  }
  throw new PullRequestError(`provider "${p.name}" is a ${p.type} provider; --pull-request needs github, gitlab or azuredevops`);
}
