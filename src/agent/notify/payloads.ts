/**
 * What each provider receives: pure functions from an event (or a commit state) to one HTTP request.
 * The wire shapes are the receivers' own: a Teams Adaptive Card (Workflows webhooks) or a legacy
 * MessageCard (Office 365 connector URLs), Slack blocks, a signed JSON webhook, and the commit status
 * APIs of GitHub, GitLab and Azure DevOps.
 */
import { createHmac } from 'node:crypto';
import { splitObject } from '../events.js';
import type { EventReason, Severity } from '../events.js';
import type { Provider } from './config.js';
import { objectLink } from '../anchors.js';

/** The event as notifications carry it (docs/agent.md webhook body, less the signature). */
export interface NotificationEvent {
  reason: EventReason;
  severity: Severity;
  object: { kind: string; name: string };
  revision: string | null;
  message: string;
  metadata: Record<string, string | number | boolean>;
  timestamp: string;
  /** The object on the agent's status page (`run --external-url`, docs/agent.md#links). */
  url?: string;
  /** The agent that sent it (`run --name`): several agents can share one channel. */
  agent?: string;
}

/** `run --external-url` and `run --name`, as notifications use them. */
export interface NotifyLinks {
  externalUrl?: string;
  agentName?: string;
}

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type CommitState = 'pending' | 'success' | 'failure';

/**
 * Colour by meaning, not by severity alone: a rollout a gate stopped (`GateHeld`) or drift is
 * amber, never green (operator review: a stopped rollout was shown green in Slack).
 */
type Tone = 'bad' | 'warn' | 'good';
const WARN_REASONS: ReadonlySet<EventReason> = new Set<EventReason>(['GateHeld', 'DriftDetected']);
function toneOf(e: { reason: EventReason; severity: Severity }): Tone {
  return e.severity === 'error' ? 'bad' : WARN_REASONS.has(e.reason) ? 'warn' : 'good';
}
const TEAMS_COLOUR: Record<Tone, string> = { bad: 'Attention', warn: 'Warning', good: 'Good' };
const SLACK_ICON: Record<Tone, string> = { bad: ':red_circle:', warn: ':large_orange_circle:', good: ':large_green_circle:' };

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

/** `sha256=` + lowercase hex HMAC-SHA256 of the exact body bytes. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'packsync' };

const title = (e: NotificationEvent): string =>
  `packsync${e.agent ? ` (${e.agent})` : ''}: ${e.reason} ${e.object.kind}/${e.object.name}`.trim();
const short = (rev: string | null): string => (rev === null ? '(none)' : rev.startsWith('sha256:') ? rev.slice(0, 19) : rev.slice(0, 12));

/** Office 365 connector URLs (retired by Microsoft in favour of Workflows) only take MessageCards. */
export function isLegacyTeamsUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.hostname.endsWith('.webhook.office.com') || u.pathname.startsWith('/webhookb2/');
  } catch {
    return false;
  }
}

/**
 * Slack mrkdwn: `&`, `<` and `>` escaped as Slack documents, so `<!everyone>`, `<!channel>` and
 * `<https://evil|https://portal.azure.com>` in a manifest value are shown, never a mention or a link.
 */
export function slackText(s: string): string {
  return s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/**
 * Teams markdown: a link needs `](`; a zero-width space between them shows the same characters with
 * no link, so `[Sign in](https://evil)` cannot disguise where it goes. The legacy MessageCard also
 * renders HTML, so there `<` and `>` are entities too.
 */
export function teamsText(s: string, legacy = false): string {
  const text = s.replace(/\](\s*)\(/g, ']\u200b$1(');
  return legacy ? text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;')) : text;
}

export function chatRequest(p: Provider, e: NotificationEvent): OutgoingRequest {
  const facts: [string, string][] = [
    ['Object', `${e.object.kind}/${e.object.name}`],
    ['Revision', short(e.revision)],
    ['Severity', e.severity],
    ...Object.entries(e.metadata).map(([k, v]): [string, string] => [k, String(v)]),
  ];
  switch (p.type) {
    case 'teams': {
      if (isLegacyTeamsUrl(p.address!)) {
        const card = {
          '@type': 'MessageCard',
          '@context': 'https://schema.org/extensions',
          summary: teamsText(title(e), true),
          themeColor: e.severity === 'error' ? 'CF222E' : '1A7F37',
          title: teamsText(title(e), true),
          text: teamsText(e.message, true),
          sections: [{ facts: facts.map(([name, value]) => ({ name, value: teamsText(value, true) })) }],
          ...(e.url
            ? { potentialAction: [{ '@type': 'OpenUri', name: 'Open in packsync', targets: [{ os: 'default', uri: e.url }] }] }
            : {}),
        };
        return { url: p.address!, headers: JSON_HEADERS, body: JSON.stringify(card) };
      }
      const card = {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                {
                  type: 'TextBlock',
                  text: teamsText(title(e)),
                  weight: 'Bolder',
                  size: 'Medium',
                  wrap: true,
                  color: TEAMS_COLOUR[toneOf(e)],
                },
                { type: 'TextBlock', text: teamsText(e.message), wrap: true },
                { type: 'FactSet', facts: facts.map(([t, value]) => ({ title: t, value: teamsText(value) })) },
              ],
              ...(e.url ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in packsync', url: e.url }] } : {}),
            },
          },
        ],
      };
      return { url: p.address!, headers: JSON_HEADERS, body: JSON.stringify(card) };
    }
    case 'slack': {
      const link = e.url ? `\n<${e.url}|Open in packsync>` : '';
      const text = `${SLACK_ICON[toneOf(e)]} *${slackText(title(e))}*\n${slackText(e.message)}${link}`;
      const msg = {
        ...(p.channel ? { channel: p.channel } : {}),
        text: slackText(`${title(e)}: ${e.message}`),
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text } },
          { type: 'context', elements: facts.map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}:* ${slackText(v)}` })) },
        ],
      };
      const url = p.address ?? 'https://slack.com/api/chat.postMessage';
      return { url, headers: { ...JSON_HEADERS, ...(p.token ? { authorization: `Bearer ${p.token}` } : {}) }, body: JSON.stringify(msg) };
    }
    case 'webhook': {
      const body = JSON.stringify(e);
      return {
        url: p.address!,
        headers: { ...JSON_HEADERS, ...(p.secret ? { 'x-packsync-signature': signature(p.secret, body) } : {}) },
        body,
      };
    }
    default:
      throw new Error(`${p.type} sets commit statuses; it takes no events`);
  }
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

export function commitStatusRequest(
  p: Provider,
  repository: string,
  sha: string,
  state: CommitState,
  /** `targetUrl`: the status page (`run --external-url`), which the status links to. */
  post: { description: string; targetUrl?: string | undefined },
): OutgoingRequest {
  const { description, targetUrl } = post;
  const target = targetUrl ? { target_url: targetUrl } : {};
  const context = `packsync/${p.name}`;
  const [owner, repo] = repository.split('/') as [string, string];
  const desc = description.slice(0, 139);
  switch (p.type) {
    case 'github': {
      const base = (p.address ?? 'https://api.github.com').replace(/\/$/, '');
      return {
        url: `${base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/statuses/${sha}`,
        headers: {
          ...JSON_HEADERS,
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${p.token ?? ''}`,
          'x-github-api-version': '2022-11-28',
        },
        body: JSON.stringify({ state, context, description: desc, ...target }),
      };
    }
    case 'gitlab': {
      const base = (p.address ?? 'https://gitlab.com/api/v4').replace(/\/$/, '');
      // GitLab's states: a pass in progress is `running`, a failed one `failed`.
      const s = state === 'pending' ? 'running' : state === 'failure' ? 'failed' : 'success';
      return {
        url: `${base}/projects/${encodeURIComponent(repository)}/statuses/${sha}`,
        headers: { ...JSON_HEADERS, 'private-token': p.token ?? '' },
        body: JSON.stringify({ state: s, name: context, description: desc, ...target }),
      };
    }
    case 'azuredevops': {
      const base = (p.address ?? '').replace(/\/$/, '');
      const s = state === 'success' ? 'succeeded' : state === 'failure' ? 'failed' : 'pending';
      return {
        url: `${base}/${encodeURIComponent(owner)}/_apis/git/repositories/${encodeURIComponent(repo)}/commits/${sha}/statuses?api-version=7.1`,
        headers: { ...JSON_HEADERS, authorization: `Basic ${Buffer.from(`:${p.token ?? ''}`).toString('base64')}` },
        body: JSON.stringify({
          state: s,
          description: desc,
          context: { genre: 'packsync', name: p.name },
          ...(targetUrl ? { targetUrl } : {}),
        }),
      };
    }
    default:
      throw new Error(`${p.type} takes events, not commit statuses`);
  }
}
