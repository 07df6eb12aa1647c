/**
 * The build checks documents with the generated validators (src/manifests/kind-validators.generated.ts),
 * not with schemas compiled at start: a fingerprint that no longer matched would silently cost every
 * load that checks a document ~200 ms again (docs/architecture.md, "Validation").
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_BIN } from '../support/spawn-cli.js';

const run = promisify(execFile);

describe('the build’s validators', () => {
  it('are the generated ones for every kind, and ajv is not loaded to check a document', async () => {
    const manifests = join(dirname(CLI_BIN), '..', 'manifests');
    const url = (f: string): string => pathToFileURL(join(manifests, f)).href;
    const script = [
      `const { validators } = await import(${JSON.stringify(url('schemas.js'))});`,
      `const generated = await import(${JSON.stringify(url('kind-validators.generated.js'))});`,
      `const { SOURCE_KINDS } = await import(${JSON.stringify(url('model.js'))});`,
      'const v = validators();',
      'const same = SOURCE_KINDS.filter((k) => v.byKind[k] === generated[k]);',
      "const ok = v.byKind.Package({ apiVersion: 'packsync.dev/v1', kind: 'Package', metadata: { name: 'x' }, spec: {} });",
      "const ajv = Object.keys((await import('node:module')).createRequire(import.meta.url).cache).filter((f) => f.includes('/ajv/dist/core'));",
      'console.log(JSON.stringify({ kinds: SOURCE_KINDS.length, same: same.length, ok, errors: v.byKind.Package.errors?.length ?? 0, ajv }));',
    ].join('\n');
    const out = await run(process.execPath, ['--input-type=module', '-e', script]);
    const r = JSON.parse(out.stdout) as { kinds: number; same: number; ok: boolean; errors: number; ajv: string[] };
    expect(r.same).toBe(r.kinds);
    expect(r.kinds).toBeGreaterThanOrEqual(5);
    expect(r.ok).toBe(false);
    expect(r.errors).toBeGreaterThan(0);
    expect(r.ajv).toEqual([]);
  });
});
