/**
 * `packsync update --push REMOTE --pull-request NAME` and the agent's `--update-pull-request NAME`: open,
 * or update when one is already open for the branch, one pull/merge request per pushed branch through a
 * forge provider (github, gitlab, azuredevops) of `--notifications FILE` (docs/manifests.md, "Version
 * policy"); each forge's requests are its module's (providers/). The token goes only into the request's
 * auth header, never into output or errors.
 */
import { request } from 'undici';
import type { PullRequestInput } from '../../update/propose.js';
import type { Provider, ProviderCall } from './provider-types.js';
import { PROVIDER_KINDS } from './providers/index.js';

/** A provider refused or could not be reached; the message never holds the token. */
export class PullRequestError extends Error {}

/** One call of the exchange through undici (the HTTP stack of the API client): the answer's JSON, or a PullRequestError. */
function caller(p: Provider, headers: Record<string, string>): ProviderCall {
  return async (c) => {
    const res = await request(c.url, {
      method: c.method as 'GET',
      headers,
      ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }),
      signal: AbortSignal.timeout(30_000),
    }).catch(() => {
      throw new PullRequestError(`pull request through provider "${p.name}": ${c.method} could not reach the provider`);
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) {
      const s = res.statusCode;
      const why = s === 401 ? 'the token was refused' : s === 404 ? 'repository not found' : `HTTP ${s}`;
      throw new PullRequestError(
        `pull request through provider "${p.name}": ${c.method} ${new URL(c.url).pathname} answered ${s} (${why})`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  };
}

/** Opens or updates the pull request of `pr.branch`; returns "opened" or "updated". */
export async function openOrUpdate(p: Provider, pr: PullRequestInput): Promise<'opened' | 'updated'> {
  const { kind, call } = forge(p);
  return kind.pullRequest!(p, pr, call);
}

/** Whether `branch` has had a pull request in any state: one a person closed is not opened again. */
export async function pullRequestExists(p: Provider, branch: string): Promise<boolean> {
  const { kind, call } = forge(p);
  return kind.pullRequestExists!(p, branch, call);
}

function forge(p: Provider): { kind: (typeof PROVIDER_KINDS)[keyof typeof PROVIDER_KINDS]; call: ProviderCall } {
  const kind = PROVIDER_KINDS[p.type];
  if (!kind.pullRequest || !kind.pullRequestExists || !kind.apiHeaders)
    throw new PullRequestError(`provider "${p.name}" is a ${p.type} provider; --pull-request needs github, gitlab or azuredevops`);
  if (!p.repository) throw new PullRequestError(`provider "${p.name}" needs repository: owner/repo for --pull-request`);
  return { kind, call: caller(p, kind.apiHeaders(p)) };
}
