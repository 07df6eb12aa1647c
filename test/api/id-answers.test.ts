/**
 * Ids of created objects arrive in three forms the evidence allows (docs/api-model.md, issue 11): a
 * quoted JSON string, an object with `id`, or the bare UUID as `text/plain`. The client must read
 * all three from the real simulator configured each way, and the id must name the new object.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { startTestSimulator } from '../support/sim.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SEVEN_ZIP = fixtureId(1, 'app', '7-Zip');

describe('client reads every id answer form', () => {
  for (const style of ['bare', 'object', 'text'] as const) {
    it(`import, flow create and add-deployment answered as ${style}`, async () => {
      const sim = await startTestSimulator({ responseStyle: style });
      const api = createApiClient({ baseUrl: `${sim.url}/v1`, apiKey: sim.key });
      try {
        const packageId = await api.importApp(SEVEN_ZIP);
        expect(packageId).toMatch(UUID);
        expect((await api.getPackage(packageId)).productName).toBe('7-Zip');
        const flowId = await api.createFlow({ appId: SEVEN_ZIP, name: `flow ${style}` });
        expect(flowId).toMatch(UUID);
        await sim.advance(60);
        const deploymentId = await api.addDeployment(flowId, { packageId });
        expect(deploymentId).toMatch(UUID);
        expect((await api.getDeployment(deploymentId)).packageId).toBe(packageId);
      } finally {
        await api.close();
        await sim.close();
      }
    });
  }
});
