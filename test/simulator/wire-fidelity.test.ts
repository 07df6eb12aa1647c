/** Small wire-fidelity regressions: each test is named after what broke. */
import { describe, expect, it } from 'vitest';
import { rawSim } from './http.js';

describe('simulator wire fidelity', () => {
  it('package-create-sourcetype-optional: creates a package from a body with only name (regression: 400 without sourceType)', async () => {
    const s = await rawSim();
    try {
      const r = await s.call('POST', '/v1/package/create', { name: 'x' });
      expect(r.status, r.text).toBe(200);
      const id = typeof r.json === 'string' ? r.json : (r.json as { id: string }).id;
      const details = await s.ok<{ sourceType: unknown; productName: string }>('GET', `/v1/package/${id}`);
      expect(details).toMatchObject({ productName: 'x', sourceType: null });
      const bad = await s.call('POST', '/v1/package/create', { name: 'y', sourceType: 'tar' });
      expect(bad.status).toBe(400);
      expect(bad.text).toMatch(/sourceType must be one of msi, exe, zip/);
    } finally {
      await s.sim.close();
    }
  });
});
