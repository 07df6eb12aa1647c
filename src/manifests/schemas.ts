/**
 * The JSON Schemas of `schemas/v1/` compiled with ajv (draft 2020-12). Compiling is the slow part of
 * validation, so the validators are built once per process, on first use.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { AnySchemaObject, ValidateFunction } from 'ajv/dist/2020.js';
import deploymentSchema from '../../schemas/v1/deployment.json' with { type: 'json' };
import flowSchema from '../../schemas/v1/flow.json' with { type: 'json' };
import packageSchema from '../../schemas/v1/package.json' with { type: 'json' };
import packsyncSchema from '../../schemas/v1/packsync.json' with { type: 'json' };
import tenantUploadSchema from '../../schemas/v1/tenant-upload.json' with { type: 'json' };
import type { Kind } from './model.js';

/** The schema of each kind, as shipped in `schemas/v1/`. */
export const KIND_SCHEMAS: Readonly<Record<Kind, AnySchemaObject>> = {
  Package: packageSchema,
  Flow: flowSchema,
  Deployment: deploymentSchema,
  TenantUpload: tenantUploadSchema,
};

/** The combined schema editors use (`kind` selects one of the four). */
export const COMBINED_SCHEMA: AnySchemaObject = packsyncSchema;

export interface Validators {
  byKind: Readonly<Record<Kind, ValidateFunction>>;
  combined: ValidateFunction;
}

let cached: Validators | undefined;

export function validators(): Validators {
  cached ??= compile();
  return cached;
}

function compile(): Validators {
  // verbose: errors carry the failing schema and data, which the messages quote. strictRequired
  // is off because `oneOf: [{required: [a]}, {required: [b]}]` names properties defined beside it.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false });
  for (const s of Object.values(KIND_SCHEMAS)) ajv.addSchema(s);
  const get = (s: AnySchemaObject): ValidateFunction => {
    const id = s.$id;
    const fn = typeof id === 'string' ? ajv.getSchema(id) : undefined;
    if (!fn) throw new Error(`schema ${String(id)} did not compile`);
    return fn;
  };
  return {
    byKind: {
      Package: get(packageSchema),
      Flow: get(flowSchema),
      Deployment: get(deploymentSchema),
      TenantUpload: get(tenantUploadSchema),
    },
    combined: ajv.compile(packsyncSchema),
  };
}
