/**
 * What a notification provider is (docs/agent.md, "Notifications"): the types every provider module
 * and the config loader share, so neither imports the other (docs/architecture.md, "Layers": no
 * cycles). One module per provider type under providers/, one registry (providers/index.ts).
 */
import type { EventReason, Severity } from '../events.js';
import type { PullRequestInput } from '../../update/propose.js';

export const PROVIDER_TYPES = ['teams', 'slack', 'webhook', 'github', 'gitlab', 'azuredevops'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export interface Provider {
  name: string;
  type: ProviderType;
  /** Chat webhook URL, or the API base for commit status (defaults per type). Secret: never logged. */
  address: string | null;
  token: string | null;
  secret: string | null;
  /** Slack bot: the channel to post to. */
  channel: string | null;
  /** Commit status: `owner/repo` (Azure DevOps: `project/repo`) when not taken from the source URL. */
  repository: string | null;
}

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

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type CommitState = 'pending' | 'success' | 'failure';

/** One HTTP call a pull-request exchange makes; the answer's JSON (null when none). */
export type ProviderCall = (c: { method: string; url: string; body?: unknown }) => Promise<unknown>;

/**
 * One provider type: what its config needs beyond the file's schema, and the requests it sends.
 * A chat provider has `event`; a forge has `commitStatus` and `pullRequest`.
 */
export interface ProviderKind {
  type: ProviderType;
  /** Why this provider's settings cannot work (a missing address or token), or null. */
  check: (p: Provider) => string | null;
  event?: (p: Provider, e: NotificationEvent) => OutgoingRequest;
  commitStatus?: (
    p: Provider,
    repository: string,
    sha: string,
    state: CommitState,
    post: { description: string; targetUrl?: string | undefined },
  ) => OutgoingRequest;
  /** Headers of the forge's API (auth included) for pull requests. */
  apiHeaders?: (p: Provider) => Record<string, string>;
  /** Opens the pull/merge request of `pr.branch`, or updates the open one. */
  pullRequest?: (p: Provider, pr: PullRequestInput, call: ProviderCall) => Promise<'opened' | 'updated'>;
  /** Whether the branch has ever had a pull/merge request, in any state (open, closed, merged). */
  pullRequestExists?: (p: Provider, branch: string, call: ProviderCall) => Promise<boolean>;
  /** The longest pull request description the forge accepts, in characters (a longer body is cut to fit). */
  bodyLimit?: number;
}

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'packsync' };

/**
 * Colour by meaning, not by severity alone: a rollout a gate stopped (`GateHeld`) or drift is
 * amber, never green (operator review: a stopped rollout was shown green in Slack).
 */
export type Tone = 'bad' | 'warn' | 'good';
const WARN_REASONS: ReadonlySet<EventReason> = new Set<EventReason>(['GateHeld', 'DriftDetected']);
export function toneOf(e: { reason: EventReason; severity: Severity }): Tone {
  return e.severity === 'error' ? 'bad' : WARN_REASONS.has(e.reason) ? 'warn' : 'good';
}

export const title = (e: NotificationEvent): string =>
  `packsync${e.agent ? ` (${e.agent})` : ''}: ${e.reason} ${e.object.kind}/${e.object.name}`.trim();

const short = (rev: string | null): string => (rev === null ? '(none)' : rev.startsWith('sha256:') ? rev.slice(0, 19) : rev.slice(0, 12));

/** The facts every chat message shows beside the text. */
export function factsOf(e: NotificationEvent): [string, string][] {
  return [
    ['Object', `${e.object.kind}/${e.object.name}`],
    ['Revision', short(e.revision)],
    ['Severity', e.severity],
    ...Object.entries(e.metadata).map(([k, v]): [string, string] => [k, String(v)]),
  ];
}

/** `owner` and `repo` of `owner/repo`. */
export function ownerRepo(repository: string): [string, string] {
  return repository.split('/') as [string, string];
}

/** The first item's id of a list answer (a bare array, or Azure DevOps' `{ value: [...] }`). */
export function firstId(list: unknown, key: 'number' | 'iid' | 'pullRequestId'): number | undefined {
  const items = Array.isArray(list)
    ? list
    : Array.isArray((list as { value?: unknown } | null)?.value)
      ? (list as { value: unknown[] }).value
      : [];
  const id = (items[0] as Record<string, unknown> | undefined)?.[key];
  return typeof id === 'number' ? id : undefined;
}
