/** Kubernetes YAML beside the manifests is skipped with one warning; the YAML library's own warnings never leak. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifests/load.js';
import { packagesYaml } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';

describe('documents of other apiVersions', () => {
  it('skips apps/v1 and v1 documents with one warning, and reads the packsync ones', async () => {
    const dir = await tempDir('packsync-foreign-');
    await mkdir(join(dir, 'deploy'));
    await writeFile(join(dir, 'packages.yaml'), packagesYaml());
    await writeFile(
      join(dir, 'deploy', 'agent.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: packsync\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: packsync\nspec:\n  ports: [{ port: 8080 }]\n',
    );
    const loaded = await loadManifests(dir);
    expect(loaded.problems).toEqual([
      expect.objectContaining({
        file: 'deploy/agent.yaml',
        line: 1,
        column: 13,
        rule: 'manifest.foreign',
        severity: 'warning',
        message: 'skipped 2 document(s) whose apiVersion is not packsync.dev/… (first: apps/v1 Deployment): not packsync manifests',
      }),
    ]);
    expect(loaded.desired?.packages.map((p) => p.metadata.name)).toEqual(['seven-zip-24-08', 'pwsh-7-4-6']);
  });

  it('does not let the YAML library print "Keys with collection values will be stringified"', async () => {
    const dir = await tempDir('packsync-yamlwarn-');
    await writeFile(
      join(dir, 'odd.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Package\nmetadata:\n  name: odd\nspec:\n  ? [a, b]\n  : 1\n',
    );
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.message);
    };
    process.on('warning', onWarning);
    try {
      const loaded = await loadManifests(dir);
      expect(loaded.problems.some((p) => p.severity === 'error')).toBe(true);
      // Node emits process warnings on a later tick: let them come before looking.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => /stringified/.test(w))).toEqual([]);
  });
});
