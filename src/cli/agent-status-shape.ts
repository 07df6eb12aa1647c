/**
 * Whether a `/status` answer is an agent's status as the terminal view reads it
 * (`agent-status-view.ts`): every list it walks is a list of objects, every nested object it reads
 * into is an object, every number it draws with is a number. A field an older agent does not send
 * may be missing (the view leaves it out); one of another type means the answer is something else,
 * `AGENT_UNREACHABLE` like any answer that is not an agent's (docs/reports.md), never a crash of the view.
 */

import { isRecord } from '../util/records.js';

type Obj = Record<string, unknown>;

const absent = (v: unknown): boolean => v === undefined || v === null;
const optObj = (v: unknown): boolean => absent(v) || isRecord(v);
const optString = (v: unknown): boolean => absent(v) || typeof v === 'string';
const optNumber = (v: unknown): boolean => absent(v) || (typeof v === 'number' && Number.isFinite(v));

/** A list field: absent, or an array of objects each passing `each`. */
function optList(v: unknown, each: (o: Obj) => boolean = () => true): boolean {
  return absent(v) || (Array.isArray(v) && v.every((x) => isRecord(x) && each(x)));
}

function condition(c: Obj): boolean {
  return typeof c.type === 'string' && optString(c.status) && optString(c.message) && optString(c.reason);
}

function rollout(r: Obj): boolean {
  return (
    optNumber(r.currentWave) &&
    optNumber(r.waveCount) &&
    optObj(r.promotion) &&
    optObj(r.gate) &&
    optObj(r.window) &&
    optList(r.tenants, (t) => optNumber(t.wave) && optNumber(t.installed) && optNumber(t.failed))
  );
}

export function isAgentStatus(body: unknown): boolean {
  if (!isRecord(body) || !Array.isArray(body.conditions) || !optList(body.conditions, condition)) return false;
  const times = [body.lastAppliedRevision, body.lastAppliedAt, body.lastAppliedSigner, body.nextPassAt];
  return (
    times.every(optString) &&
    optObj(body.source) &&
    optList(body.problems) &&
    optList(body.objects, (o) => optObj(o.error) && optObj(o.source)) &&
    optList(body.gates, (g) => optObj(g.held)) &&
    optList(body.rollouts, rollout) &&
    optList(body.expiredExceptions) &&
    optList(body.serviceStarted)
  );
}
