/**
 * What each provider receives: an event (or a commit state) turned into one HTTP request by the
 * provider's own module (providers/, one per type: Teams cards, Slack blocks, a signed JSON webhook,
 * the commit status APIs of GitHub, GitLab and Azure DevOps).
 */
import { splitObject } from '../events.js';
import type { EventReason, Severity } from '../events.js';
import { objectLink } from '../http/anchors.js';
import type { CommitState, NotificationEvent, OutgoingRequest, Provider } from './provider-types.js';
import { PROVIDER_KINDS } from './providers/index.js';

/** `run --external-url` and `run --name`, as notifications use them. */
export interface NotifyLinks {
  externalUrl?: string;
  agentName?: string;
}

export function toNotification(
  e: { reason: EventReason; severity: Severity; object?: string; revision: string | null; message: string; count: number; wave?: number },
  timestamp: string,
  extra: Record<string, string | number | boolean> = {},
  links: NotifyLinks = {},
): NotificationEvent {
  const url = objectLink(links.externalUrl, e.object);
  return {
    reason: e.reason,
    severity: e.severity,
    object: splitObject(e.object),
    revision: e.revision,
    message: e.message,
    metadata: { count: e.count, ...(e.wave !== undefined ? { wave: e.wave } : {}), ...extra },
    timestamp,
    ...(url ? { url } : {}),
    ...(links.agentName ? { agent: links.agentName } : {}),
  };
}

/** The request a chat or webhook provider receives for an event. */
export function chatRequest(p: Provider, e: NotificationEvent): OutgoingRequest {
  const kind = PROVIDER_KINDS[p.type];
  if (!kind.event) throw new Error(`${p.type} sets commit statuses; it takes no events`);
  return kind.event(p, e);
}

/**
 * `owner/repo` from the source URL's last two path segments without `.git` (Azure DevOps:
 * `project/repo` around `_git`), or the provider's `repository:`.
 */
export function repositoryOf(p: Provider, sourceUrl: string): string | null {
  if (p.repository) return p.repository;
  const path =
    /^[\w.-]+@[\w.-]+:(.*)$/.exec(sourceUrl)?.[1] ??
    (() => {
      try {
        return new URL(sourceUrl).pathname;
      } catch {
        return '';
      }
    })();
  const parts = decodeURIComponent(path)
    .replace(/\.git$/, '')
    .split('/')
    .filter(Boolean);
  const git = parts.indexOf('_git');
  if (git > 0 && parts[git + 1]) return `${parts[git - 1]}/${parts[git + 1]}`;
  return parts.length >= 2 ? `${parts[parts.length - 2]}/${parts[parts.length - 1]}` : null;
}

/** The request that sets a commit's status on a forge (the description cut at the forges' 140 characters). */
export function commitStatusRequest(
  p: Provider,
  repository: string,
  sha: string,
  state: CommitState,
  /** `targetUrl`: the status page (`run --external-url`), which the status links to. */
  post: { description: string; targetUrl?: string | undefined },
): OutgoingRequest {
  const kind = PROVIDER_KINDS[p.type];
  if (!kind.commitStatus) throw new Error(`${p.type} takes events, not commit statuses`);
  return kind.commitStatus(p, repository, sha, state, { ...post, description: post.description.slice(0, 139) });
}
