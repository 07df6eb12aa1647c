/**
 * Sends agent events and commit states to the configured providers (docs/agent.md). It listens to the
 * event log and to pass starts and ends; it never blocks or fails a pass: deliveries run in the
 * background, a failed one is retried with backoff and then counted as failed (and tried again on
 * the event's next occurrence, since only a delivered event counts as sent).
 *
 * Once per event: an identity (object, reason, revision, wave) delivered to a provider is not sent
 * to it again, across restarts (the store), while it stands. A failure that persists is reminded
 * after 1 h, 4 h and then every 24 h; `Recovered` goes only to providers that were told about the
 * failure it answers, and closes it: the same failure after that is sent again.
 */
import { request } from 'undici';
import type { Logger } from 'pino';
import { eventIdentity } from '../events.js';
import type { AgentEvent } from '../events.js';
import type { AgentMetrics } from '../http/metrics.js';
import { COMMIT_STATUS_TYPES } from './providers/index.js';
import type { Alert, NotificationConfig } from './config.js';
import type { Provider } from './provider-types.js';
import { chatRequest, commitStatusRequest, repositoryOf, toNotification } from './payloads.js';
import type { NotifyLinks } from './payloads.js';
import type { CommitState, OutgoingRequest } from './provider-types.js';
import { objectLink } from '../http/anchors.js';
import type { NotifyStore } from './store.js';

/** A named agent says so in its commit statuses too (several agents can apply one repository). */
function described(description: string, links: NotifyLinks | undefined): string {
  return links?.agentName ? `${links.agentName}: ${description}` : description;
}

export const REMINDER_BACKOFF_MS = [3_600_000, 4 * 3_600_000, 24 * 3_600_000] as const;
export const DELIVERY_RETRY_MS = [1000, 5000, 30_000] as const;

export interface NotifierOptions {
  config: NotificationConfig;
  store: NotifyStore;
  /** The source URL (credentials removed): commit status repositories come from it. */
  sourceUrl: string;
  logger: Logger;
  metrics?: Pick<AgentMetrics, 'notifications'>;
  now?: () => Date;
  /** Waits between delivery attempts (the first attempt is at once). */
  retryMs?: readonly number[];
  reminderMs?: readonly number[];
  timeoutMs?: number;
  /** `run --external-url` / `run --name` (docs/agent.md#links). */
  links?: NotifyLinks;
}

export interface DeliveryResult {
  ok: boolean;
  /** HTTP status, or 0 when no response came. */
  status: number;
  /** Why it failed, without the URL or any token. */
  error?: string;
}

/**
 * One POST through undici (the HTTP stack of the API client; redirects are not followed); a 2xx (and,
 * for Slack's API, `ok: true`) is a delivery. Nothing in the result names the URL.
 */
export async function deliver(req: OutgoingRequest, timeoutMs = 10_000): Promise<DeliveryResult> {
  try {
    const res = await request(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299) return { ok: false, status: res.statusCode, error: `HTTP ${res.statusCode}` };
    const type = res.headers['content-type'];
    if ((Array.isArray(type) ? type.join(';') : (type ?? '')).includes('json') && /"ok"\s*:\s*false/.test(text))
      return { ok: false, status: res.statusCode, error: 'the receiver answered ok: false' };
    return { ok: true, status: res.statusCode };
  } catch (e) {
    const code =
      (e as { code?: string; cause?: { code?: string } }).code ?? (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
    const timedOut = code === 'TimeoutError' || (e as Error).name === 'TimeoutError' || code === 'UND_ERR_ABORTED';
    return { ok: false, status: 0, error: timedOut ? 'timed out' : `no response (${code})` };
  }
}

export function alertMatches(a: Alert, e: Pick<AgentEvent, 'reason' | 'severity' | 'object' | 'intended'>): boolean {
  if (a.severity === 'error' && e.severity !== 'error' && e.reason !== 'Recovered') return false;
  // A hold git asked for is no news: sent only where an alert names its reason.
  if (e.intended && !a.reasons?.includes(e.reason)) return false;
  if (a.reasons && !a.reasons.includes(e.reason) && !(e.reason === 'Recovered' && a.reasons.length > 0)) return false;
  if (a.objects && !a.objects.some((g) => g.test(e.object ?? ''))) return false;
  return true;
}

export class Notifier {
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries under way by key: a second occurrence while the first is still being sent is not sent again. */
  private readonly sending = new Set<string>();
  private readonly providers: Map<string, Provider>;

  constructor(private readonly o: NotifierOptions) {
    this.providers = new Map(o.config.providers.map((p) => [p.name, p]));
  }

  private now(): Date {
    return (this.o.now ?? (() => new Date()))();
  }

  /** Chat and webhook providers some alert sends this event to (each once). */
  private targets(e: AgentEvent): Provider[] {
    const names = new Set(this.o.config.alerts.filter((a) => alertMatches(a, e)).map((a) => a.provider));
    return [...names].map((n) => this.providers.get(n)!).filter((p) => !COMMIT_STATUS_TYPES.has(p.type));
  }

  /** The event log's listener: every occurrence of every event. */
  onEvent(e: AgentEvent): void {
    const sent = this.o.store.state.sent;
    const t = this.now();
    for (const p of this.targets(e)) {
      const key = `${p.name}|${eventIdentity(e)}`;
      // The same event twice in one pass (e.g. RolloutCompleted from the gate and from the board):
      // the first delivery is still under way, so `sent` does not know it yet.
      if (this.sending.has(key)) continue;
      const stored = sent[key];
      // A failure record closed by an older version (kept with `open: false`) is answered: not a sent one.
      const rec = stored && (stored.open || e.severity !== 'error') ? stored : undefined;
      let extra: Record<string, string | number | boolean> = {};
      let opens: string[] = [];
      if (e.reason === 'Recovered') {
        // Only answer failures this provider was told about, for the same object.
        opens = Object.entries(sent)
          .filter(([k, r]) => k.startsWith(`${p.name}|`) && r.open && r.object === (e.object ?? ''))
          .map(([k]) => k);
        // The same Recovered identity can answer a second outage on the same revision: what makes it
        // news is an open failure, not whether this identity was sent before.
        if (opens.length === 0) continue;
      } else if (rec) {
        const wait = (this.o.reminderMs ?? REMINDER_BACKOFF_MS)[Math.min(rec.reminders, 2)]!;
        if (e.severity !== 'error' || t.getTime() - Date.parse(rec.at) < wait) continue;
        extra = { reminder: rec.reminders + 1 };
      }
      const note = toNotification(e, t.toISOString(), extra, this.o.links);
      this.sending.add(key);
      this.send(
        p,
        e.reason,
        () => chatRequest(p, note),
        () => {
          this.sending.delete(key);
          delete sent[key];
          sent[key] = {
            at: t.toISOString(),
            reminders: rec && e.reason !== 'Recovered' ? rec.reminders + 1 : 0,
            object: e.object ?? '',
            reason: e.reason,
            open: e.severity === 'error',
          };
          // An answered failure is forgotten: the same failure after it (a second outage on the same
          // commit) is a new occurrence and is sent again (regression: it stayed silent, `open: false`).
          for (const k of opens) delete sent[k];
        },
        () => this.sending.delete(key),
      );
    }
  }

  /**
   * Failures some provider was told of and that no `Recovered` answered yet, as the store kept them
   * across restarts: the agent answers those that cleared while it was down (docs/agent.md "Notifications").
   */
  openFailures(): { object: string; reason: string }[] {
    return Object.values(this.o.store.state.sent)
      .filter((r) => r.open)
      .map((r) => ({ object: r.object, reason: r.reason }));
  }

  /** A pass started on `revision`: `pending` on the commit. */
  passStarted(revision: string | null): void {
    this.commitState(revision, 'pending', 'packsync is applying this revision');
  }

  /**
   * A pass ended: `success` or `failure` on the commit it attempted. `success` only when the
   * revision is fully in effect (objects that require pruning keep it `pending`); a pass failure
   * (an outage) on a revision already applied is the agent's health (conditions, events), not a
   * verdict on the commit (docs/agent.md "Notifications").
   */
  passFinished(revision: string | null, ok: boolean, message: string, more: { notInEffect?: string; alreadyApplied?: boolean } = {}): void {
    if (!ok && more.alreadyApplied) return;
    // Still pending, but a verdict of its own: it replaces "applying" (regression: the first pending kept it for ever).
    if (ok && more.notInEffect) this.commitState(revision, 'pending', more.notInEffect, 'pending:applied');
    else this.commitState(revision, ok ? 'success' : 'failure', ok ? 'packsync applied this revision' : message);
  }

  /** `verdict` is what is recorded per commit: `state`, or a pending that is a pass's verdict. */
  private commitState(revision: string | null, state: CommitState, description: string, verdict: string = state): void {
    // Only a git commit has a status; a directory's digest has nowhere to go.
    if (revision === null || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(revision)) return;
    const statuses = this.o.store.state.statuses;
    for (const p of this.o.config.providers) {
      if (!COMMIT_STATUS_TYPES.has(p.type)) continue;
      const alerts = this.o.config.alerts.filter((a) => a.provider === p.name);
      // An alert enables the provider; `severity: error` posts failures only.
      if (alerts.length === 0 || (state !== 'failure' && alerts.every((a) => a.severity === 'error'))) continue;
      const repo = repositoryOf(p, this.o.sourceUrl);
      if (!repo) {
        this.o.logger.warn({ provider: p.name }, 'commit status skipped: no owner/repo in the source URL; set repository: in the provider');
        continue;
      }
      const key = `${p.name}|${revision}`;
      // A commit already judged is not set back to pending by a re-pass (interval, retry): only a
      // different verdict is posted, which keeps well under the hosts' per-sha status limits.
      if (statuses[key] === verdict || (verdict === 'pending' && statuses[key] !== undefined)) continue;
      const reason = state === 'failure' ? 'CommitStatusFailure' : state === 'success' ? 'CommitStatusSuccess' : 'CommitStatusPending';
      const before = statuses[key];
      // Recorded at once so a post queued meanwhile compares with the newest state; undone if it is not delivered.
      delete statuses[key];
      statuses[key] = verdict;
      this.send(
        p,
        reason,
        () =>
          commitStatusRequest(p, repo, revision, state, {
            description: described(description, this.o.links),
            targetUrl: objectLink(this.o.links?.externalUrl, undefined),
          }),
        () => undefined,
        () => {
          if (statuses[key] !== verdict) return;
          if (before === undefined) delete statuses[key];
          else statuses[key] = before;
        },
      );
    }
  }

  private send(
    p: Provider,
    reason: string,
    build: () => OutgoingRequest,
    onSent: () => void,
    onFailed: () => void = () => undefined,
  ): void {
    const job = (async (): Promise<void> => {
      const req = build();
      const waits = [0, ...(this.o.retryMs ?? DELIVERY_RETRY_MS)];
      let last: DeliveryResult = { ok: false, status: 0 };
      for (const [i, w] of waits.entries()) {
        if (w > 0) await new Promise((r) => setTimeout(r, w).unref());
        last = await deliver(req, this.o.timeoutMs);
        if (last.ok) break;
        // A 4xx other than 408/429 will not get better by itself.
        if (last.status >= 400 && last.status < 500 && last.status !== 408 && last.status !== 429) break;
        if (i < waits.length - 1)
          this.o.logger.debug({ provider: p.name, reason, attempt: i + 1, error: last.error }, 'notification delivery failed; retrying');
      }
      this.o.metrics?.notifications.inc({ provider: p.name, reason, result: last.ok ? 'sent' : 'failed' });
      if (last.ok) {
        onSent();
        await this.o.store.save();
      } else {
        onFailed();
        this.o.logger.warn(
          { provider: p.name, type: p.type, reason, status: last.status },
          `notification to ${p.name} not delivered: ${last.error ?? 'unknown'}`,
        );
      }
    })();
    this.inFlight.add(job);
    void job.finally(() => this.inFlight.delete(job));
  }

  /** Resolves when every delivery started so far has finished (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}
