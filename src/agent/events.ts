/**
 * Agent events (docs/agent.md): a closed set of reasons, an identity of (object, reason, revision,
 * wave) that never includes the message text, and Kubernetes-style aggregation: an event seen
 * again bumps its count and lastTimestamp instead of adding a line, unless a `Recovered` answered it
 * in between (then it is a new outage, a new line). Listeners (notifications) hear
 * every occurrence, new or repeated, and decide themselves what to send.
 */

export const EVENT_REASONS = [
  'ValidationFailed',
  'ApplyFailed',
  'ApplySucceeded',
  'DriftDetected',
  'DriftHealed',
  'WaveAdvanced',
  'GateHeld',
  'GateFailed',
  'RolloutCompleted',
  'VerificationFailed',
  'Recovered',
  // Rollout policy (docs/policy.md): a break-glass move through a closed window, a revision waiting for approvals.
  'WindowIgnored',
  'ApprovalPending',
  // The update automation (docs/agent.md "Update automation"): an update pushed for review, a run that failed.
  'UpdateProposed',
  'UpdateFailed',
  // A Baseline exception passed its `expires` date: the baseline applies to that app again (docs/baselines.md).
  'ExceptionExpired',
] as const;
export type EventReason = (typeof EVENT_REASONS)[number];

/** Reasons that are failures: `severity: error` alerts see only these; a later success answers them with `Recovered`. */
export const ERROR_REASONS: ReadonlySet<EventReason> = new Set<EventReason>([
  'ValidationFailed',
  'ApplyFailed',
  'GateFailed',
  'VerificationFailed',
  'UpdateFailed',
]);

export type Severity = 'info' | 'error';

export function severityOf(reason: EventReason): Severity {
  return ERROR_REASONS.has(reason) ? 'error' : 'info';
}

/** What an agent event is about: `Kind/name`, or `Source/<url>` for a whole revision. */
export interface AgentEvent {
  /** First time this identity was seen. */
  time: string;
  lastTimestamp: string;
  count: number;
  type: 'Normal' | 'Warning';
  severity: Severity;
  reason: EventReason;
  object?: string;
  message: string;
  revision: string | null;
  wave?: number;
  /** A state git asked for (a `spec.wave` hold): notified only to alerts that name its reason (docs/agent.md "Notifications"). */
  intended?: true;
}

export type EventInput = Pick<AgentEvent, 'reason' | 'message' | 'revision'> & { object?: string; wave?: number; intended?: true };

export const EVENT_LIMIT = 50;

/**
 * The identity of an event: never its message, so an unchanged failure reworded by the API is not
 * new. A hold is a state of the deployment, not of a commit: `GateHeld` leaves the revision out, so
 * a hold on the same wave standing across new commits is one occurrence (regression: it was sent
 * again on every commit).
 */
export function eventIdentity(
  e: Pick<AgentEvent, 'reason' | 'revision'> & { object?: string | undefined; wave?: number | undefined },
): string {
  // A hold, or an expired exception, is a state of the object, not of a commit: one occurrence across commits.
  const perObject = e.reason === 'GateHeld' || e.reason === 'ExceptionExpired';
  return JSON.stringify([e.object ?? '', e.reason, perObject ? null : e.revision, e.wave ?? null]);
}

/** Splits `Kind/name` (the name may hold slashes, as a source URL does). */
export function splitObject(key: string | undefined): { kind: string; name: string } {
  if (!key) return { kind: 'Source', name: '' };
  const i = key.indexOf('/');
  return i < 0 ? { kind: key, name: '' } : { kind: key.slice(0, i), name: key.slice(i + 1) };
}

export type EventListener = (e: AgentEvent, isNew: boolean) => void;

export class EventLog {
  /** Newest (by lastTimestamp) first, bounded. */
  readonly events: AgentEvent[] = [];
  private readonly listeners: EventListener[] = [];

  constructor(private readonly now: () => Date = () => new Date()) {}

  onEvent(l: EventListener): void {
    this.listeners.push(l);
  }

  /**
   * Records an occurrence. Returns true when it starts a new event: its identity is not in the bounded
   * log, or the event there was answered since (below).
   */
  record(input: EventInput): boolean {
    const id = eventIdentity(input);
    const t = this.now().toISOString();
    const i = this.events.findIndex((e) => eventIdentity(e) === id);
    let e: AgentEvent;
    const isNew = i < 0 || this.answeredSince(i, input);
    if (isNew) {
      e = {
        time: t,
        lastTimestamp: t,
        count: 1,
        type: ERROR_REASONS.has(input.reason) || input.reason === 'DriftDetected' ? 'Warning' : 'Normal',
        severity: severityOf(input.reason),
        reason: input.reason,
        ...(input.object !== undefined ? { object: input.object } : {}),
        message: input.message,
        revision: input.revision,
        ...(input.wave !== undefined ? { wave: input.wave } : {}),
        ...(input.intended ? { intended: true as const } : {}),
      };
    } else {
      e = this.events.splice(i, 1)[0]!;
      e.count++;
      e.lastTimestamp = t;
      e.message = input.message;
    }
    this.events.unshift(e);
    this.events.length = Math.min(this.events.length, EVENT_LIMIT);
    for (const l of this.listeners) l(e, isNew);
    return isNew;
  }

  /**
   * Whether the event at `i` was answered after its last occurrence: a failure by a `Recovered` of
   * its object, a `Recovered` by a new failure of it. Then the occurrence is a new outage (or a new
   * recovery), a new event with its own time and a count from 1 (regression: a second outage was
   * merged into the first, already recovered one, and its notification carried both counts).
   */
  private answeredSince(i: number, input: EventInput): boolean {
    const answers = (later: AgentEvent): boolean =>
      input.reason === 'Recovered' ? ERROR_REASONS.has(later.reason) : ERROR_REASONS.has(input.reason) && later.reason === 'Recovered';
    // Newest first: everything before `i` happened after the event's last occurrence.
    return this.events.slice(0, i).some((later) => (later.object ?? '') === (input.object ?? '') && answers(later));
  }
}
