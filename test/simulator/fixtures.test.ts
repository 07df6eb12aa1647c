/** Fixtures are deterministic per seed and sized per fleet. */
import { describe, expect, it } from 'vitest';
import { buildFixtures } from '../../src/simulator/fixtures.js';

describe('simulator fixtures', () => {
  it('small fleet: 4 tenants, 25 apps, 3 templates, 3 patch groups, radar data', () => {
    const f = buildFixtures(1, 'small');
    expect([f.tenants.length, f.apps.length, f.templates.length, f.patchGroups.length]).toEqual([4, 25, 3, 3]);
    expect(f.radar.length).toBeGreaterThan(0);
    expect(f.patchGroups.find((g) => g.name === 'Pilot first')?.waves.map((w) => w.delayHours)).toEqual([24, 48, 72]);
  });

  it('large fleet: 50 tenants, 20 patch groups, over 1,000 apps with unique names', () => {
    const f = buildFixtures(1, 'large');
    expect(f.tenants.length).toBe(50);
    expect(f.patchGroups.length).toBe(20);
    expect(f.apps.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(f.apps.map((a) => a.name.toLowerCase())).size).toBe(f.apps.length);
    expect(f.patchGroups.every((g) => g.waves.every((w) => w.tenantIds.length > 0))).toBe(true);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const a = buildFixtures(7, 'small');
    const b = buildFixtures(7, 'small');
    const c = buildFixtures(8, 'small');
    expect(JSON.stringify([...a.radarDevices])).toBe(JSON.stringify([...b.radarDevices]));
    expect(a.apps.map((x) => x.id)).toEqual(b.apps.map((x) => x.id));
    expect(a.apps[0]!.id).not.toBe(c.apps[0]!.id);
    expect(buildFixtures(1, 'none').apps).toEqual([]);
  });
});
