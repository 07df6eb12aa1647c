import { describe, expect, it } from 'vitest';
import {
  appliedEntry,
  decideContent,
  decideState,
  decideWave,
  driftPolicy,
  needsRecord,
  settle,
  statusAsState,
  willRun,
} from '../../src/plan/kinds/deployment-decisions.js';
import type { DriftPolicy, LiveDeployment } from '../../src/plan/kinds/deployment-decisions.js';
import type { InventoryEntry } from '../../src/state/inventory-types.js';

const KEY = 'Deployment/zip';
const HEAL: DriftPolicy = { heal: true, held: false, label: 'heal' };
const REPORT: DriftPolicy = { heal: false, held: false, label: 'report' };
const HELD: DriftPolicy = { heal: false, held: true, label: 'heal held by backoff' };
const HOLD = { at: 'x', deploymentId: 'd1', wave: 2, reason: 'failure rate 30% > 10%', stopped: true };

function liveAs(status: string, extra: Partial<LiveDeployment> = {}): LiveDeployment {
  return { status, currentWave: 1, waveCount: 3, contentUpdateStatus: 'None', ...extra } as LiveDeployment;
}
function entry(extra: Partial<InventoryEntry> = {}): InventoryEntry {
  return { kind: 'Deployment', name: 'zip', id: 'd1', specHash: 'h', spec: {}, revision: 'r0', updatedAt: 'x', ...extra };
}

describe('driftPolicy', () => {
  it('heals under drift: heal, reports under drift: report, and only reports a key the agent holds', () => {
    expect(driftPolicy({ drift: 'heal' }, KEY)).toEqual(HEAL);
    expect(driftPolicy({ drift: 'report' }, KEY)).toEqual(REPORT);
    expect(driftPolicy({ drift: 'heal', driftHold: [KEY] }, KEY)).toEqual(HELD);
    expect(driftPolicy({ drift: 'heal', driftHold: ['Deployment/other'] }, KEY)).toEqual(HEAL);
  });
});

describe('decideState', () => {
  // [git state, live status, applied state, held by a gate, policy] → [decision, ops, fields]
  const table: [string, string, string | undefined, boolean, DriftPolicy, string, string[], string[]][] = [
    ['running', 'NotStarted', 'pending', false, HEAL, 'transition', ['start'], ['state pending→running']],
    ['running', 'Stopped', 'stopped', false, HEAL, 'transition', ['start'], ['state stopped→running']],
    ['running', 'Stopped', 'running', false, HEAL, 'drift', ['start'], []],
    ['running', 'Stopped', 'running', false, REPORT, 'drift', [], []],
    ['running', 'Stopped', 'running', false, HELD, 'drift', [], []],
    ['running', 'Stopped', 'running', true, HEAL, 'held', [], []],
    ['running', 'NotStarted', 'stopped', true, HEAL, 'held', [], []],
    ['running', 'Running', 'running', true, HEAL, 'none', [], []],
    ['running', 'Running', 'running', false, HEAL, 'none', [], []],
    ['running', 'Completed', 'running', false, HEAL, 'none', [], []],
    ['stopped', 'Running', 'running', false, HEAL, 'transition', ['stop'], ['state running→stopped']],
    ['stopped', 'Running', undefined, false, HEAL, 'transition', ['stop'], ['state running→stopped']],
    ['stopped', 'Running', 'stopped', false, HEAL, 'drift', ['stop'], []],
    ['stopped', 'Running', 'stopped', false, REPORT, 'drift', [], []],
    ['stopped', 'Stopped', 'stopped', false, HEAL, 'none', [], []],
    ['stopped', 'NotStarted', 'pending', false, HEAL, 'none', [], []],
    ['pending', 'Running', 'pending', false, HEAL, 'unhealable', [], []],
    ['pending', 'Stopped', 'pending', false, HEAL, 'unhealable', [], []],
    ['pending', 'NotStarted', 'pending', false, HEAL, 'none', [], []],
  ];
  it.each(table)('git %s, live %s, applied %s, held %s → %#', (state, status, applied, held, policy, kind, ops, fields) => {
    const d = decideState(
      KEY,
      state as 'running',
      liveAs(status),
      { ...(applied !== undefined ? { appliedState: applied } : {}), ...(held ? { hold: HOLD } : {}) },
      policy,
    );
    expect(d.kind).toBe(kind);
    expect(d.writes.map((w) => w.op)).toEqual(ops);
    expect(d.fields.map((f) => `${f.field} ${String(f.from)}→${String(f.to)}`)).toEqual(fields);
    expect(d.reasons).toHaveLength(kind === 'none' || kind === 'transition' ? 0 : 1);
  });

  it('says which drift and under which policy, and how to release a gate hold', () => {
    const stopped = decideState(KEY, 'running', liveAs('Stopped'), { appliedState: 'running' }, HELD);
    expect(stopped.reasons).toEqual(['stopped outside packsync while git says running (drift: heal held by backoff)']);
    expect(decideState(KEY, 'running', liveAs('Stopped'), { appliedState: 'running' }, HEAL).writes).toEqual([
      { op: 'start', description: 'start again (heal drift)' },
    ]);
    const held = decideState(KEY, 'running', liveAs('Stopped'), { appliedState: 'stopped', hold: HOLD }, HEAL);
    expect(held.reasons[0]).toBe(
      'held by its promotion gate (wave 2): failure rate 30% > 10%; `packsync resume Deployment/zip --reason ...` releases it',
    );
    const pending = decideState(KEY, 'pending', liveAs('Running', { currentWave: 2 }), {}, HEAL);
    expect(pending.reasons[0]).toMatch(/^is Running \(wave 2\/3\) while git says pending: .* set state: running or stopped$/);
  });
});

describe('willRun', () => {
  it('is true for git running with the deployment running live or started this pass', () => {
    const none = decideState(KEY, 'running', liveAs('Running'), {}, HEAL);
    const start = decideState(KEY, 'running', liveAs('Stopped'), { appliedState: 'stopped' }, HEAL);
    const reported = decideState(KEY, 'running', liveAs('Stopped'), { appliedState: 'running' }, REPORT);
    expect(willRun('running', liveAs('Running'), none)).toBe(true);
    expect(willRun('running', liveAs('Stopped'), start)).toBe(true);
    expect(willRun('running', liveAs('Stopped'), reported)).toBe(false);
    expect(willRun('running', liveAs('Completed'), none)).toBe(false);
    expect(willRun('stopped', liveAs('Running'), none)).toBe(false);
  });
});

describe('decideWave', () => {
  it('skips one wave at a time up to the gate, each guarded by the wave it stops below', () => {
    const s = decideWave(3, true, liveAs('Running', { currentWave: 1, waveCount: 3 }));
    expect(s.fields).toEqual([{ field: 'wave', from: 1, to: 3 }]);
    expect(s.writes).toEqual([
      { op: 'skip-wave', description: 'skip wave 1 → 2', untilWave: 2 },
      { op: 'skip-wave', description: 'skip wave 2 → 3', untilWave: 3 },
    ]);
    expect(s.reasons).toEqual([]);
  });

  it('counts a deployment not yet on a wave as on wave 1, and caps the gate at the live wave count when known', () => {
    expect(decideWave(2, true, liveAs('NotStarted', { currentWave: 0, waveCount: 3 })).writes.map((w) => w.description)).toEqual([
      'skip wave 1 → 2',
    ]);
    expect(decideWave(5, true, liveAs('Running', { currentWave: 2, waveCount: 3 })).fields).toEqual([{ field: 'wave', from: 2, to: 3 }]);
    expect(decideWave(3, true, liveAs('Running', { currentWave: 1, waveCount: 0 })).writes).toHaveLength(2);
  });

  it('never moves a deployment back: a live wave past the gate is a reason, not a change', () => {
    const s = decideWave(1, true, liveAs('Running', { currentWave: 3 }));
    expect(s.writes).toEqual([]);
    expect(s.fields).toEqual([]);
    expect(s.reasons).toEqual(['live wave 3 is past the gate wave 1']);
  });

  it('decides nothing without a gate, or for a deployment that does not run after this pass', () => {
    expect(decideWave(undefined, true, liveAs('Running'))).toEqual({ reasons: [], fields: [], writes: [] });
    expect(decideWave(3, false, liveAs('Running', { currentWave: 5 }))).toEqual({ reasons: [], fields: [], writes: [] });
  });
});

describe('decideContent', () => {
  it('updates content once for a changed revision of a started deployment', () => {
    expect(decideContent(2, 1, liveAs('Running'))).toEqual({
      reasons: [],
      fields: [{ field: 'contentRevision', from: 1, to: 2 }],
      writes: [{ op: 'update-content', description: 'update content (revision 2)' }],
    });
    expect(decideContent(2, undefined, liveAs('Stopped')).fields).toEqual([{ field: 'contentRevision', from: null, to: 2 }]);
  });

  it('only records the revision before the start, waits for a running update, and does nothing when unchanged', () => {
    expect(decideContent(2, 1, liveAs('NotStarted'))).toEqual({
      reasons: ['contentRevision recorded: content is fresh until the deployment starts'],
      fields: [],
      writes: [],
    });
    expect(decideContent(2, 1, liveAs('Running', { contentUpdateStatus: 'Running' })).reasons).toEqual([
      'a content update is already running',
    ]);
    expect(decideContent(2, 2, liveAs('Running'))).toEqual({ reasons: [], fields: [], writes: [] });
    expect(decideContent(undefined, 1, liveAs('Running'))).toEqual({ reasons: [], fields: [], writes: [] });
  });
});

describe('settle', () => {
  const drift = decideState(KEY, 'running', liveAs('Stopped'), { appliedState: 'running' }, HEAL);
  const unhealable = decideState(KEY, 'pending', liveAs('Running'), {}, HEAL);
  const none = decideState(KEY, 'running', liveAs('Running'), {}, HEAL);

  it('marks drift healed, reported or held; only healed drift goes on to record', () => {
    expect(settle(drift, HEAL, true)).toEqual({ reportOnly: false, drift: 'healed' });
    expect(settle(drift, REPORT, false)).toEqual({ reportOnly: true, drift: 'reported' });
    expect(settle(drift, HELD, false)).toEqual({ reportOnly: true, drift: 'held' });
  });

  it('reports unhealable drift when nothing else is written, and records when something is', () => {
    expect(settle(unhealable, HEAL, false)).toEqual({ reportOnly: true, drift: 'reported' });
    expect(settle(unhealable, HEAL, true)).toEqual({ reportOnly: false });
    expect(settle(none, HEAL, false)).toEqual({ reportOnly: false });
  });
});

describe('appliedEntry and needsRecord', () => {
  it("records git's state, except under a gate hold, which keeps the state the gate recorded", () => {
    expect(appliedEntry(entry({ appliedState: 'running' }), 'stopped', undefined, false, liveAs('Running')).appliedState).toBe('stopped');
    const held = entry({ appliedState: 'stopped', hold: HOLD });
    expect(appliedEntry(held, 'running', undefined, false, liveAs('Stopped')).appliedState).toBe('stopped');
    expect(appliedEntry(entry({ hold: HOLD }), 'running', undefined, false, liveAs('Stopped')).appliedState).toBe('running');
  });

  it('records the revision once content is updated, or before the start; not while an update is only awaited', () => {
    const e = entry({ appliedState: 'running', contentRevision: 1 });
    expect(appliedEntry(e, 'running', 2, true, liveAs('Running')).contentRevision).toBe(2);
    expect(appliedEntry(e, 'running', 2, false, liveAs('NotStarted')).contentRevision).toBe(2);
    expect(appliedEntry(e, 'running', 2, false, liveAs('Running', { contentUpdateStatus: 'Running' })).contentRevision).toBe(1);
  });

  it('writes a record when anything was written or what it records moved, and not otherwise', () => {
    const e = entry({ appliedState: 'running', contentRevision: 1 });
    expect(needsRecord(e, { ...e }, false)).toBe(false);
    expect(needsRecord(e, { ...e }, true)).toBe(true);
    expect(needsRecord(e, { ...e, appliedState: 'stopped' }, false)).toBe(true);
    expect(needsRecord(e, { ...e, contentRevision: 2 }, false)).toBe(true);
  });
});

describe('statusAsState', () => {
  it('reads live statuses as manifest states', () => {
    expect(['NotStarted', 'Stopped', 'Running', 'Completed'].map((status) => statusAsState({ status } as LiveDeployment))).toEqual([
      'pending',
      'stopped',
      'running',
      'running',
    ]);
  });
});
