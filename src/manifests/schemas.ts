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
import type { SourceKind } from './model.js';

/** The schema of each kind, as shipped in `schemas/v1/`. */
export const KIND_SCHEMAS: Readonly<Record<SourceKind, AnySchemaObject>> = Object.fromEntries(
  SOURCE_KINDS.map((k) => [
    k,
    ({ ...OBJECT_KIND_SPECS, ...AUTHORED_KIND_SPECS } as Record<string, { schema: AnySchemaObject }>)[k]!.schema,
  ]),
) as Record<SourceKind, AnySchemaObject>;

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
  // ajv itself is loaded here too: a load whose files all come from the manifest cache checks no
  // document, and its modules were ~40 ms of every such start (docs/performance.md, fleet-cli).
  const { Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof AjvModule;
  // verbose: errors carry the failing schema and data, which the messages quote. strictRequired
  // is off because `oneOf: [{required: [a]}, {required: [b]}]` names properties defined beside it.
  // validateSchema is off: the shipped schemas are checked against the 2020-12 meta-schema by a
  // test (test/manifests/schema-types.test.ts), where compiling the meta-schema on every start was
  // ~90 ms of each cold load.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false, validateSchema: false });
  for (const s of Object.values(KIND_SCHEMAS)) ajv.addSchema(s);
  const get = (s: AnySchemaObject): ValidateFunction => {
    const id = s.$id;
    const fn = typeof id === 'string' ? ajv.getSchema(id) : undefined;
    if (!fn) throw new Error(`schema ${String(id)} did not compile`);
    return fn;
  };
  // Each validator is compiled when first asked for (~15–40 ms each): a repository of three kinds
  // compiles three, and only the editors' combined schema's users compile that one.
  const byKind = {} as Record<SourceKind, ValidateFunction>;
  for (const k of SOURCE_KINDS) {
    let fn: ValidateFunction | undefined;
    Object.defineProperty(byKind, k, { enumerable: true, get: () => (fn ??= get(KIND_SCHEMAS[k])) });
  }
  let combined: ValidateFunction | undefined;
  return {
    byKind,
    get combined(): ValidateFunction {
      return (combined ??= ajv.compile(packsyncSchema));
    },
  };
}
