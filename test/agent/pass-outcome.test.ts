/** The pass outcome as a pure function of built reconcile outputs and errors: every branch of the result and message. */
import { describe, expect, it } from 'vitest';
import { passOutcome } from '../../src/agent/pass-outcome.js';
import type { ApplyResult, ObjectOutcome } from '../../src/apply/executor.js';
import type { ReconcileOutput } from '../../src/engine/reconcile.js';
import { DEFAULT_PLAN_OPTIONS, PLAN_VERSION } from '../../src/plan/types.js';
import type { ObjectPlan, Plan } from '../../src/plan/types.js';
import { PacksyncError } from '../../src/util/errors.js';
import { desired } from '../plan/fixtures.js';

const REV = 'abc123';

function obj(key: string, extra: Partial<ObjectPlan> = {}): ObjectPlan {
  return { key, kind: 'Deployment', name: key.split('/')[1] ?? key, change: 'none', reasons: [], fields: [], actions: [], ...extra };
}

function outcome(key: string, o: ObjectOutcome['outcome'], extra: Partial<ObjectOutcome> = {}): ObjectOutcome {
  return { key, kind: 'Deployment', name: key.split('/')[1] ?? key, outcome: o, reasons: [], ...extra };
}

function applied(objects: ObjectOutcome[], extra: Partial<ApplyResult> = {}): ApplyResult {
  const counts = { created: 0, configured: 0, unchanged: 0, deleted: 0, skipped: 0, failed: 0 };
  for (const o of objects) counts[o.outcome]++;
  return {
    objects,
    counts,
    writes: counts.created + counts.configured + counts.deleted,
    reads: 0,
    failed: counts.failed,
    waiting: objects.filter((o) => o.waiting).length,
    aborted: false,
    ...extra,
  };
}

function planned(objects: ObjectPlan[], result?: ApplyResult, errors: string[] = []): ReconcileOutput {
  const plan: Plan = {
    version: PLAN_VERSION,
    revision: REV,
    generatedAt: '2026-11-22T12:00:00Z',
    options: DEFAULT_PLAN_OPTIONS,
    objects,
    actions: [],
    summary: { create: 0, change: 0, delete: 0, unchanged: 0, waiting: 0, blocked: 0, drifted: 0 },
    errors,
    digests: { live: '', inventory: '' },
  };
  return { kind: 'planned', plan, desired: desired({}), warnings: [], ...(result ? { result } : {}) };
}

describe('passOutcome', () => {
  it('a converged apply succeeds with counts, writes and a message naming the revision', () => {
    const o = passOutcome(
      planned(
        [obj('Deployment/a', { change: 'create' }), obj('Deployment/b')],
        applied([outcome('Deployment/a', 'created'), outcome('Deployment/b', 'unchanged')]),
      ),
    );
    expect(o).toMatchObject({ revision: REV, result: 'Succeeded', writes: 1, waiting: false, failure: null, problems: [] });
    expect(o.message).toBe(`applied revision ${REV}: 1 created, 0 configured, 0 deleted, 1 unchanged`);
    expect(o.counts).toMatchObject({ created: 1, unchanged: 1 });
    expect(o.objects?.map((x) => x.key)).toEqual(['Deployment/a', 'Deployment/b']);
  });

  it('a plan without an apply result is in sync, with no objects', () => {
    expect(passOutcome(planned([obj('Deployment/a')]))).toMatchObject({
      result: 'Succeeded',
      message: `revision ${REV} is in sync`,
      objects: [],
      counts: {},
      writes: 0,
    });
  });

  it('drift: objects carry how it was handled; reported and held drift is counted and named in the message', () => {
    const o = passOutcome(
      planned(
        [
          obj('Deployment/a', { drift: 'healed', change: 'update' }),
          obj('Deployment/b', { drift: 'held' }),
          obj('Deployment/c', { drift: 'reported' }),
          obj('Deployment/d', { source: { file: 'd.yaml', line: 3, column: 1 } }),
        ],
        applied([
          outcome('Deployment/a', 'configured'),
          outcome('Deployment/b', 'unchanged'),
          outcome('Deployment/c', 'unchanged'),
          outcome('Deployment/d', 'unchanged'),
        ]),
      ),
    );
    expect(o.result).toBe('Succeeded');
    expect(o.counts.drifted).toBe(2);
    expect(o.message).toMatch(/, 2 drifted$/);
    expect(o.objects).toEqual([
      expect.objectContaining({ key: 'Deployment/a', drift: true, driftHandling: 'healed' }),
      expect.objectContaining({ key: 'Deployment/b', drift: true, driftHandling: 'held' }),
      expect.objectContaining({ key: 'Deployment/c', drift: true, driftHandling: 'reported' }),
      expect.objectContaining({ key: 'Deployment/d', source: { file: 'd.yaml', line: 3, column: 1 } }),
    ]);
    expect(o.objects?.[3]).not.toHaveProperty('drift');
  });

  it('waiting: planned as waiting or deferred during the apply; the message says a requeued pass continues', () => {
    expect(passOutcome(planned([obj('Deployment/a', { change: 'waiting' })], applied([])))).toMatchObject({
      result: 'Succeeded',
      waiting: true,
    });
    const deferred = passOutcome(
      planned([obj('Deployment/a', { change: 'create' })], applied([outcome('Deployment/a', 'skipped', { waiting: true })])),
    );
    expect(deferred).toMatchObject({ result: 'Succeeded', waiting: true });
    expect(deferred.message).toMatch(/; 1 waiting on the service, continued by a requeued pass$/);
  });

  it('plan errors fail the pass before anything else is looked at', () => {
    const o = passOutcome(planned([obj('Deployment/a', { change: 'error' })], undefined, ['prune would delete everything', 'second']));
    expect(o).toMatchObject({ result: 'Failed', message: 'prune would delete everything; second', failure: null });
  });

  it('an aborted apply is Aborted, even with failing objects', () => {
    const o = passOutcome(planned([obj('Deployment/a', { change: 'conflict' })], applied([], { aborted: true })));
    expect(o).toMatchObject({ result: 'Aborted', message: 'the pass was stopped before it finished' });
  });

  it('objects that cannot be converged fail the pass, naming the first with its error or reason', () => {
    const err = passOutcome(
      planned(
        [
          obj('Deployment/a'),
          obj('Deployment/b', { change: 'error', error: { code: 'API_NOT_FOUND', message: 'no such flow' } }),
          obj('Deployment/c', { change: 'conflict' }),
        ],
        applied([]),
      ),
    );
    expect(err).toMatchObject({
      result: 'Failed',
      message: '2 object(s) cannot be converged; first: Deployment/b: API_NOT_FOUND: no such flow',
      failure: null,
    });
    const reason = passOutcome(planned([obj('Deployment/c', { change: 'requires-replacement', reasons: ['package changed'] })]));
    expect(reason.message).toBe('1 object(s) cannot be converged; first: Deployment/c: package changed');
  });

  it('failed objects fail the pass, naming the first with its code; counts are kept', () => {
    const o = passOutcome(
      planned(
        [obj('Deployment/a', { change: 'create' })],
        applied([
          outcome('Deployment/b', 'created'),
          outcome('Deployment/a', 'failed', { error: { code: 'API_UNAVAILABLE', message: 'boom' } }),
        ]),
      ),
    );
    expect(o).toMatchObject({
      result: 'Failed',
      message: '1 object(s) failed; first: Deployment/a: API_UNAVAILABLE boom',
      failure: null,
      writes: 1,
    });
    expect(o.counts).toMatchObject({ created: 1, failed: 1 });
  });

  it('an invalid revision names its first error with FILE:LINE:COL and keeps every problem, warnings too', () => {
    const warning = {
      severity: 'warning' as const,
      file: 'a.yaml',
      line: 1,
      column: 1,
      pointer: '',
      rule: 'w',
      message: 'just so you know',
    };
    const error = {
      severity: 'error' as const,
      file: 'b.yaml',
      line: 4,
      column: 10,
      pointer: '/spec/state',
      rule: 'enum',
      message: 'state must be one of running, stopped',
    };
    const o = passOutcome({ kind: 'invalid', revision: REV, problems: [warning, error] });
    expect(o).toMatchObject({ result: 'Invalid', revision: REV, objects: null, problems: [warning, error], failure: null });
    expect(o.message).toBe(`revision ${REV} is invalid: 1 problem(s), first: b.yaml:4:10: state must be one of running, stopped`);
    expect(passOutcome({ kind: 'invalid', revision: null, problems: [error] }).message).toMatch(/^revision \(directory\) is invalid/);
  });

  it('an error that ended the pass is its failure code; after a stop request it is Aborted', () => {
    const e = new PacksyncError('API_UNAUTHORIZED', 'the API key was rejected');
    expect(passOutcome({ kind: 'error', error: e, revision: REV, stopped: false })).toMatchObject({
      result: 'Failed',
      failure: 'API_UNAUTHORIZED',
      message: 'API_UNAUTHORIZED: the API key was rejected',
      revision: REV,
      objects: null,
    });
    expect(passOutcome({ kind: 'error', error: e, revision: null, stopped: true })).toMatchObject({
      result: 'Aborted',
      failure: 'API_UNAUTHORIZED',
    });
    expect(passOutcome({ kind: 'error', error: new Error('bug'), revision: null, stopped: false })).toMatchObject({
      failure: 'INTERNAL',
      message: 'INTERNAL: bug',
    });
  });
});
