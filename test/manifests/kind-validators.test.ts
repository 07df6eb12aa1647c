/**
 * The committed standalone validators (src/manifests/kind-validators.generated.ts) are what the
 * kinds' schemas make now, and judge every document as the schemas compiled at run time do, errors
 * included (their messages quote the failing schema and data).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { AJV_OPTIONS, kindValidatorsSource, validatorsFingerprint } from '../../src/manifests/kind-validators-source.js';
import * as generated from '../../src/manifests/kind-validators.generated.js';
import { KIND_SCHEMAS } from '../../src/manifests/schemas.js';
import { SOURCE_KINDS } from '../../src/manifests/model.js';

const GENERATED = '../../src/manifests/kind-validators.generated.ts';

function runtimeValidators(): Record<string, ValidateFunction> {
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof AjvModule;
  const ajv = new Ajv2020(AJV_OPTIONS);
  for (const s of Object.values(KIND_SCHEMAS)) ajv.addSchema(s);
  return Object.fromEntries(SOURCE_KINDS.map((k) => [k, ajv.getSchema(KIND_SCHEMAS[k].$id!)!]));
}

/** Every manifest document of the examples and the test fixtures, each also with its spec taken apart. */
async function corpus(): Promise<Record<string, unknown>[]> {
  const docs: Record<string, unknown>[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (/\.ya?ml$/.test(e.name))
        for (const d of parseAllDocuments(await readFile(p, 'utf8'))) {
          const v: unknown = 'toJS' in d ? d.toJS() : undefined;
          if (v && typeof v === 'object' && !Array.isArray(v) && SOURCE_KINDS.includes((v as { kind: never }).kind))
            docs.push(v as Record<string, unknown>);
        }
    }
  };
  await walk('examples');
  await walk('test/fixtures');
  const broken = docs.flatMap((d) => {
    const spec = d.spec as Record<string, unknown> | undefined;
    return [
      { ...d, extra: true },
      { ...d, metadata: { name: '' } },
      { ...d, spec: spec ? Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, typeof v === 'string' ? 7 : 'x'])) : null },
    ];
  });
  return [...docs, ...broken];
}

describe('standalone kind validators', () => {
  it('are the committed file (after a schema change: npx vitest run test/manifests/kind-validators.test.ts --update)', async () => {
    await expect(kindValidatorsSource(KIND_SCHEMAS)).toMatchFileSnapshot(GENERATED);
    expect(generated.FINGERPRINT).toBe(validatorsFingerprint(KIND_SCHEMAS));
  });

  it('give the verdict and the errors of the schemas compiled at run time, for every example and fixture', async () => {
    const runtime = runtimeValidators();
    const docs = await corpus();
    expect(docs.length).toBeGreaterThan(100);
    let refused = 0;
    for (const d of docs) {
      const kind = d.kind as (typeof SOURCE_KINDS)[number];
      const a = runtime[kind]!;
      const b = (generated as unknown as Record<string, ValidateFunction>)[kind]!;
      const ok = a(d);
      expect(b(d)).toBe(ok);
      expect(b.errors ?? null).toEqual(a.errors ?? null);
      if (!ok) refused++;
    }
    expect(refused).toBeGreaterThan(docs.length / 2);
  });
});
