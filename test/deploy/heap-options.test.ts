import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { AGENT_NODE_OPTIONS } from '../../bench/support.js';

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
  resources?: { limits?: { memory?: string } };
}

describe('agent heap limits', () => {
  it('sets the benchmarked NODE_OPTIONS on every packsync agent container with a 256Mi limit', async () => {
    for (const file of ['deploy/kubernetes/agent-git.yaml', 'deploy/kubernetes/sidecar-git-sync.yaml']) {
      const docs = parseAllDocuments(await readFile(file, 'utf8')).map(
        (d) => d.toJS() as { spec?: { template?: { spec?: { containers?: Container[] } } } },
      );
      const agents = docs.flatMap((d) => d.spec?.template?.spec?.containers ?? []).filter((c) => c.name === 'packsync');
      expect(agents.length, file).toBeGreaterThan(0);
      for (const c of agents) {
        expect(c.resources?.limits?.memory, file).toBe('256Mi');
        expect(c.env?.find((e) => e.name === 'NODE_OPTIONS')?.value, file).toBe(AGENT_NODE_OPTIONS);
      }
    }
  });
});
