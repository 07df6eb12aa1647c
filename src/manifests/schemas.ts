/**
 * The JSON Schemas of `schemas/v1/` compiled with ajv (draft 2020-12). Compiling is the slow part of
 * validation, so the validators are built once per process, on first use. Each kind's schema comes
 * from its descriptor (manifests/kinds/).
 */
import { createRequire } from 'node:module';
import type { AnySchemaObject, ValidateFunction } from 'ajv/dist/2020.js';
import type * as AjvModule from 'ajv/dist/2020.js';
import packsyncSchema from '../../schemas/v1/packsync.json' with { type: 'json' };
import { AUTHORED_KIND_SPECS, OBJECT_KIND_SPECS } from './kinds/index.js';
import { SOURCE_KINDS } from './model.js';
import { AJV_OPTIONS, validatorsFingerprint } from './kind-validators-source.js';
import type { SourceKind } from './model.js';

/** The schema of each kind, as shipped in `schemas/v1/`. */
export const KIND_SCHEMAS: Readonly<Record<SourceKind, AnySchemaObject>> = Object.fromEntries(
  SOURCE_KINDS.map((k) => [
    k,
    ({ ...OBJECT_KIND_SPECS, ...AUTHORED_KIND_SPECS } as Record<string, { schema: AnySchemaObject }>)[k]!.schema,
  ]),
) as Record<SourceKind, AnySchemaObject>;

// ajv and the generated validators are loaded on first use only (see `compile`), through one require.
const require = createRequire(import.meta.url);

/** The combined schema editors use (`kind` selects one). */
export const COMBINED_SCHEMA: AnySchemaObject = packsyncSchema;

export interface Validators {
  byKind: Readonly<Record<SourceKind, ValidateFunction>>;
  combined: ValidateFunction;
}

let cached: Validators | undefined;

export function validators(): Validators {
  cached ??= compile();
  return cached;
}

function compile(): Validators {
  const standalone = standaloneValidators();
  // ajv itself is loaded only without them: a load whose files all come from the manifest cache
  // checks no document, and its modules were ~40 ms of every such start (docs/performance.md, fleet-cli).
  let ajv: AjvModule.Ajv2020 | undefined;
  const ajvWithSchemas = (): AjvModule.Ajv2020 => {
    if (ajv) return ajv;
    const { Ajv2020 } = require('ajv/dist/2020.js') as typeof AjvModule;
    ajv = new Ajv2020(AJV_OPTIONS);
    for (const s of Object.values(KIND_SCHEMAS)) ajv.addSchema(s);
    return ajv;
  };
  const get = (s: AnySchemaObject): ValidateFunction => {
    const id = s.$id;
    const fn = typeof id === 'string' ? ajvWithSchemas().getSchema(id) : undefined;
    if (!fn) throw new Error(`schema ${String(id)} did not compile`);
    return fn;
  };
  // Each validator is compiled when first asked for (~15–40 ms each): a repository of three kinds
  // compiles three, and only the editors' combined schema's users compile that one.
  const byKind = {} as Record<SourceKind, ValidateFunction>;
  for (const k of SOURCE_KINDS) {
    let fn: ValidateFunction | undefined = standalone?.[k];
    Object.defineProperty(byKind, k, { enumerable: true, get: () => (fn ??= get(KIND_SCHEMAS[k])) });
  }
  let combined: ValidateFunction | undefined;
  return {
    byKind,
    get combined(): ValidateFunction {
      return (combined ??= ajvWithSchemas().compile(packsyncSchema));
    },
  };
}

/**
 * The generated validators (kind-validators-source.ts), when they were made from exactly these
 * schemas, this ajv and these options; otherwise undefined and the schemas are compiled here. They
 * exist only in the build: the test runner, which runs the TypeScript, always compiles.
 */
function standaloneValidators(): Partial<Record<SourceKind, ValidateFunction>> | undefined {
  let mod: { FINGERPRINT?: unknown } & Partial<Record<SourceKind, ValidateFunction>>;
  try {
    mod = require('./kind-validators.generated.js') as typeof mod;
  } catch {
    return undefined;
  }
  return mod.FINGERPRINT === validatorsFingerprint(KIND_SCHEMAS) ? mod : undefined;
}
