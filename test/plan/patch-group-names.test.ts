/**
 * A Flow's `patchGroup` (a Baseline ring's too) may name the patch group (design §13: `pilot: Pilot
 * first`). The v1 API cannot list patch groups, so a name is resolved only where the service lists
 * them (the packsync simulator): what must hold is that the create sends the id, the state records
 * the id (so the name and the id are the same flow), and where no list could be read the flow is an
 * error at its field before anything is written.
 */
import { describe, expect, it } from 'vitest';
import { APP_7ZIP, desired, flow, live, ops, run } from './fixtures.js';

const PILOT = { id: '2e346735-40e0-4c05-9733-4aece1ad5b00', name: 'Pilot first' };
const SERVERS = { id: '70e48ebd-c4b2-4396-9b84-5cc827789108', name: 'Servers' };

describe('a patch group named by name', () => {
  it('is created from the id of the group of that name (case-insensitive), and recorded by id', () => {
    const p = run(
      desired({ flows: [flow('zip', { app: '7-Zip', patchGroup: 'pilot FIRST' })] }),
      live({ apps: [APP_7ZIP], patchGroups: [PILOT, SERVERS] }),
    );
    expect(p.errors).toEqual([]);
    const create = p.actions.find((a) => a.op === 'create-flow') as {
      body: { patchGroupId?: string };
      record: { spec: { patchGroup: unknown } };
    };
    expect(create.body.patchGroupId).toBe(PILOT.id);
    expect(create.record.spec.patchGroup).toBe(PILOT.id);
  });

  it('plans the same as its id', () => {
    const byName = run(
      desired({ flows: [flow('zip', { app: '7-Zip', patchGroup: 'Servers' })] }),
      live({ apps: [APP_7ZIP], patchGroups: [PILOT, SERVERS] }),
    );
    const byId = run(desired({ flows: [flow('zip', { app: '7-Zip', patchGroup: SERVERS.id })] }), live({ apps: [APP_7ZIP] }));
    expect(byName.actions).toEqual(byId.actions);
  });

  it('unknown, is an error of the flow at spec.patchGroup that names the nearest group, and nothing is created', () => {
    const p = run(
      desired({ flows: [flow('zip', { app: '7-Zip', patchGroup: 'Pilot frist' })] }),
      live({ apps: [APP_7ZIP], patchGroups: [PILOT, SERVERS] }),
    );
    const o = p.objects.find((x) => x.key === 'Flow/zip');
    expect(o?.change).toBe('error');
    expect(o?.error?.message).toMatch(/unknown patch group "Pilot frist"; did you mean "Pilot first"/);
    expect(ops(p)).not.toContain('create-flow');
  });

  it('against a service that cannot list patch groups (the v1 API), is an error that says to write the id', () => {
    const p = run(
      desired({ flows: [flow('zip', { app: '7-Zip', patchGroup: 'Pilot first' })] }),
      live({ apps: [APP_7ZIP], patchGroups: null }),
    );
    const o = p.objects.find((x) => x.key === 'Flow/zip');
    expect(o?.change).toBe('error');
    expect(o?.error?.message).toMatch(/no list of patch groups .* write the patch group's id/);
    expect(ops(p)).not.toContain('create-flow');
  });
});
