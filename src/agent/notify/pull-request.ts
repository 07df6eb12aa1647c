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
import { redactSecrets } from '../../util/secrets.js';

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
      // The forge's own words (a 400's or 422's reason) say what to change; never the token.
      const said = forgeMessage(text);
      throw new PullRequestError(
        `pull request through provider "${p.name}": ${c.method} ${new URL(c.url).pathname} answered ${s} (${why})${said ? `: ${redactSecrets(said, [p.token ?? ''])}` : ''}`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  };
}

/** Longest forge message quoted in an error. */
const SAID_MAX = 300;

/** What a forge's error answer says: `message` (GitHub, GitLab, Azure DevOps), GitHub's `errors[].message`, GitLab's `error`. */
export function forgeMessage(text: string): string | undefined {
  let said: string | undefined;
  try {
    const j = JSON.parse(text) as { message?: unknown; error?: unknown; errors?: unknown };
    const details = Array.isArray(j.errors)
      ? j.errors.map((e) => (typeof e === 'string' ? e : (e as { message?: unknown } | null)?.message)).filter((m) => typeof m === 'string')
      : [];
    const main = typeof j.message === 'string' ? j.message : j.message !== undefined ? JSON.stringify(j.message) : undefined;
    said = [main ?? (typeof j.error === 'string' ? j.error : undefined), ...details].filter(Boolean).join('; ') || undefined;
  } catch {
    said = text.trim().split('\n', 1)[0] || undefined;
  }
  if (said === undefined) return undefined;
  const flat = said.replace(/\s+/g, ' ').trim();
  return flat.length > SAID_MAX ? `${flat.slice(0, SAID_MAX)}…` : flat;
}

/** Opens or updates the pull request of `pr.branch`; returns "opened" or "updated". */
export async function openOrUpdate(p: Provider, pr: PullRequestInput): Promise<'opened' | 'updated'> {
  const { kind, call } = forge(p);
  return kind.pullRequest!(p, { ...pr, body: fitBody(pr.body, kind.bodyLimit ?? DEFAULT_BODY_LIMIT) }, call);
}

/** A forge that names no limit: GitHub's, the smallest of the common ones before Azure DevOps. */
const DEFAULT_BODY_LIMIT = 65_536;

/**
 * A body the forge accepts: cut at the last line that fits, with a line saying where the rest is.
 * Azure DevOps takes 4,000 characters, so its body keeps the change table and the plan's start.
 */
export function fitBody(body: string, limit: number): string {
  if (body.length <= limit) return body;
  const note = `\n\n… (cut at this forge's limit of ${limit.toLocaleString('en-US')} characters; run \`packsync plan\` on the branch for all of it)\n`;
  const room = Math.max(0, limit - note.length);
  const head = body.slice(0, room);
  const lineEnd = head.lastIndexOf('\n');
  return `${lineEnd > 0 ? head.slice(0, lineEnd) : head}${note}`;
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
