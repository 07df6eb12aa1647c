import { describe, expect, it } from 'vitest';
import { runGraph } from '../../src/apply/executor.js';
import type { ApplyEvent } from '../../src/apply/events.js';
import type { PlanAction } from '../../src/plan/types.js';

function act(id: string, dependsOn: string[] = [], key = `Flow/${id}`): PlanAction {
  return { id, key, op: 'forget', dependsOn, description: id };
}
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 2));

describe('runGraph', () => {
  it('waits have slots of their own: work proceeds while more waits than the limit are pending (imports waiting held every write slot)', async () => {
    const release: (() => void)[] = [];
    const doneWork: string[] = [];
    const waits: PlanAction[] = Array.from({ length: 6 }, (_, i) => ({ ...act(`w${i}`), op: 'wait-package', packageKey: 'Package/p' }));
    const work = Array.from({ length: 6 }, (_, i) => act(`x${i}`));
    const running = runGraph(
      [...waits, ...work],
      2,
      undefined,
      async (a) => {
        if (a.op === 'wait-package') await new Promise<void>((r) => release.push(r));
        else doneWork.push(a.id);
      },
      () => undefined,
    );
    // Every wait is pending (6 > the 2 work slots) and every piece of work still ran.
    for (let i = 0; i < 20 && (release.length < 6 || doneWork.length < 6); i++) await tick();
    expect(release.length).toBe(6);
    expect(doneWork).toHaveLength(6);
    for (const r of release) r();
    const results = await running;
    expect([...results.values()].every((r) => r.status === 'done')).toBe(true);
  });

  it('runs dependencies before dependents and never more than the concurrency limit at once', async () => {
    const order: string[] = [];
    let inFlight = 0;
    let peak = 0;
    const actions = [act('a'), act('b'), act('c'), act('d', ['a', 'b']), act('e', ['d']), act('f')];
    const results = await runGraph(
      actions,
      2,
      undefined,
      async (a) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick();
        order.push(a.id);
        inFlight--;
      },
      () => undefined,
    );
    expect(peak).toBe(2);
    expect(order.indexOf('d')).toBeGreaterThan(order.indexOf('a'));
    expect(order.indexOf('d')).toBeGreaterThan(order.indexOf('b'));
    expect(order.indexOf('e')).toBeGreaterThan(order.indexOf('d'));
    expect([...results.values()].every((r) => r.status === 'done')).toBe(true);
  });

  it('skips only the dependents of a failed action; independent branches proceed', async () => {
    const events: ApplyEvent[] = [];
    const actions = [act('a'), act('b', ['a']), act('c', ['b']), act('x'), act('y', ['x'])];
    const results = await runGraph(
      actions,
      4,
      undefined,
      async (a) => {
        await tick();
        if (a.id === 'a') throw Object.assign(new Error('boom'), { code: 'API_CONFLICT' });
      },
      (e) => events.push(e),
    );
    expect(results.get('a')).toEqual({ status: 'failed', error: { code: 'API_CONFLICT', message: 'boom' } });
    expect(results.get('b')?.status).toBe('skipped');
    expect(results.get('c')?.status).toBe('skipped');
    expect(results.get('x')?.status).toBe('done');
    expect(results.get('y')?.status).toBe('done');
    expect(events.filter((e) => e.type === 'action-skipped')).toHaveLength(2);
  });

  it('a deferred wait is not a failure: its dependents are skipped as waiting, independent branches proceed', async () => {
    const events: ApplyEvent[] = [];
    const actions = [act('wait'), act('flow', ['wait']), act('deployment', ['flow']), act('stop')];
    const results = await runGraph(
      actions,
      4,
      undefined,
      async (a) => {
        await tick();
        if (a.id === 'wait')
          throw Object.assign(new Error('package p is still Running; a later pass continues'), { code: 'WAIT_DEFERRED' });
      },
      (e) => events.push(e),
    );
    expect(results.get('wait')?.status).toBe('waiting');
    expect(results.get('flow')).toEqual({
      status: 'skipped',
      error: { code: 'WAITING', message: 'waits for Flow/wait, still processing' },
    });
    expect(results.get('deployment')?.error?.code).toBe('WAITING');
    expect(results.get('stop')?.status).toBe('done');
    expect(events.filter((e) => e.type === 'action-failed')).toHaveLength(0);
    expect(events.filter((e) => e.type === 'action-waiting')).toHaveLength(1);
  });

  it('starts nothing new after an abort and lets in-flight actions finish', async () => {
    const ac = new AbortController();
    const finished: string[] = [];
    const actions = [act('a'), act('b', ['a']), act('c', ['b'])];
    const results = await runGraph(
      actions,
      1,
      ac.signal,
      async (a) => {
        if (a.id === 'a') ac.abort();
        await tick();
        finished.push(a.id);
      },
      () => undefined,
    );
    expect(finished).toEqual(['a']);
    expect(results.get('a')?.status).toBe('done');
    expect(results.get('b')?.error?.code).toBe('ABORTED');
    expect(results.get('c')?.status).toBe('skipped');
  });

  it('finishes at once on an empty plan', async () => {
    expect(
      (
        await runGraph(
          [],
          4,
          undefined,
          () => Promise.resolve(),
          () => undefined,
        )
      ).size,
    ).toBe(0);
  });
});
