/**
 * The schemas in `schemas/v1/` and the types in `src/manifests/model.ts` describe the same shape.
 * Each key list below is checked by tsc against a type (`satisfies Record<keyof T, true>` fails
 * when a field is added to or removed from the type), and by this test against the schema.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { DETECTION_OPERATORS, FLOW_FLAGS, SOURCE_TYPES } from '../../src/api/wire/index.js';
import type {
  CatalogPackageSpec,
  CustomPackageSpec,
  DeploymentSpec,
  DeploymentState,
  DetectionRule,
  FlowManifest,
  FlowSpec,
  Kind,
  Metadata,
  PackageSpec,
  PromotionSpec,
  Scope,
  TenantUploadSpec,
} from '../../src/manifests/model.js';
import { KINDS, SOURCE_KINDS } from '../../src/manifests/model.js';
import { COMBINED_SCHEMA, KIND_SCHEMAS, validators } from '../../src/manifests/schemas.js';
import { WINDOW_PATTERN } from '../../src/manifests/window-values.js';

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Keys<T> = Record<keyof T, true>;
type Required<T> = Record<RequiredKeys<T>, true>;

// `source` and `positions` are added by the loader (where things were written), not fields of the schema.
const envelope = { apiVersion: true, kind: true, metadata: true, spec: true } satisfies Record<
  Exclude<keyof FlowManifest, 'source' | 'positions'>,
  true
>;
const envelopeRequired = { apiVersion: true, kind: true, metadata: true, spec: true } satisfies Record<
  Exclude<RequiredKeys<FlowManifest>, 'source'>,
  true
>;
const metadata = { name: true, labels: true, annotations: true } satisfies Keys<Metadata>;
const metadataRequired = { name: true } satisfies Required<Metadata>;
const packageSpec = { suspend: true, catalog: true, custom: true } satisfies Keys<PackageSpec>;
const catalog = {
  app: true,
  version: true,
  versionId: true,
  scope: true,
  scriptTemplate: true,
  update: true,
} satisfies Keys<CatalogPackageSpec>;
const catalogRequired = { app: true } satisfies Required<CatalogPackageSpec>;
const customSpec = {
  name: true,
  publisher: true,
  version: true,
  sourceType: true,
  installCommand: true,
  uninstallCommand: true,
  userContext: true,
  runAnalysis: true,
  scriptTemplate: true,
  detectionRules: true,
  content: true,
} satisfies Keys<CustomPackageSpec>;
const customRequired = { name: true, version: true, sourceType: true } satisfies Required<CustomPackageSpec>;
const detectionRule = {
  type: true,
  path: true,
  fileName: true,
  is32Bit: true,
  operator: true,
  targetVersion: true,
  keyPath: true,
  valueName: true,
  productCode: true,
  scriptContent: true,
  description: true,
} satisfies Keys<DetectionRule>;
const detectionRuleRequired = { type: true } satisfies Required<DetectionRule>;
const flowSpec = {
  suspend: true,
  name: true,
  app: true,
  package: true,
  patchGroup: true,
  scope: true,
  flags: true,
  supersedenceHistoryCount: true,
  scriptTemplate: true,
  windows: true,
  promotion: true,
} satisfies Keys<FlowSpec>;
const flowRequired = {} satisfies Required<FlowSpec>;
const deploymentSpec = {
  suspend: true,
  flow: true,
  package: true,
  version: true,
  state: true,
  wave: true,
  promotion: true,
  contentRevision: true,
  windows: true,
} satisfies Keys<DeploymentSpec>;
const promotionSpec = {
  soak: true,
  minDevices: true,
  successRate: true,
  maxFailureRate: true,
  deadline: true,
  onFailure: true,
  toWave: true,
} satisfies Keys<PromotionSpec>;
const deploymentRequired = { flow: true, package: true } satisfies Required<DeploymentSpec>;
const tenantUploadSpec = { suspend: true, tenant: true, package: true, uploadMsixAsWin32: true } satisfies Keys<TenantUploadSpec>;
const tenantUploadRequired = { tenant: true, package: true } satisfies Required<TenantUploadSpec>;

const scopes = { machine: true, user: true } satisfies Record<Scope, true>;
const states = { pending: true, running: true, stopped: true } satisfies Record<DeploymentState, true>;
const ruleTypes = { file: true, registry: true, msi: true, script: true } satisfies Record<DetectionRule['type'], true>;

interface S {
  properties?: Record<string, S>;
  required?: string[];
  enum?: unknown[];
  items?: S;
  $ref?: string;
  $defs?: Record<string, S>;
  [k: string]: unknown;
}

const schema = (k: Kind): S => KIND_SCHEMAS[k];
const deref = (root: S, s: S | undefined): S => {
  if (!s) throw new Error('missing schema');
  const ref = s.$ref;
  if (!ref) return s;
  const name = /^#\/\$defs\/(.+)$/.exec(ref)?.[1];
  const target = name ? root.$defs?.[name] : undefined;
  if (!target) throw new Error(`cannot resolve ${ref}`);
  return target;
};
const props = (s: S): string[] => Object.keys(s.properties ?? {}).sort();
const keys = (o: object): string[] => Object.keys(o).sort();
const prop = (root: S, s: S, name: string): S => deref(root, s.properties?.[name]);

interface Pair {
  name: string;
  root: S;
  at: S;
  keys: object;
  required: object;
}

const pkg = schema('Package');
const pkgSpec = prop(pkg, pkg, 'spec');
const pkgCustom = prop(pkg, pkgSpec, 'custom');
const pairs: Pair[] = [
  ...KINDS.map((k): Pair => ({ name: `${k} envelope`, root: schema(k), at: schema(k), keys: envelope, required: envelopeRequired })),
  ...KINDS.map((k): Pair => ({
    name: `${k} metadata`,
    root: schema(k),
    at: prop(schema(k), schema(k), 'metadata'),
    keys: metadata,
    required: metadataRequired,
  })),
  { name: 'Package spec', root: pkg, at: pkgSpec, keys: packageSpec, required: {} },
  { name: 'Package spec.catalog', root: pkg, at: prop(pkg, pkgSpec, 'catalog'), keys: catalog, required: catalogRequired },
  { name: 'Package spec.custom', root: pkg, at: pkgCustom, keys: customSpec, required: customRequired },
  {
    name: 'detection rule',
    root: pkg,
    at: deref(pkg, pkgCustom.properties?.detectionRules?.items),
    keys: detectionRule,
    required: detectionRuleRequired,
  },
  { name: 'Flow spec', root: schema('Flow'), at: prop(schema('Flow'), schema('Flow'), 'spec'), keys: flowSpec, required: flowRequired },
  {
    name: 'Deployment spec',
    root: schema('Deployment'),
    at: prop(schema('Deployment'), schema('Deployment'), 'spec'),
    keys: deploymentSpec,
    required: deploymentRequired,
  },
  {
    name: 'Deployment spec.promotion',
    root: schema('Deployment'),
    at: prop(schema('Deployment'), prop(schema('Deployment'), schema('Deployment'), 'spec'), 'promotion'),
    keys: promotionSpec,
    required: {},
  },
  {
    name: 'TenantUpload spec',
    root: schema('TenantUpload'),
    at: prop(schema('TenantUpload'), schema('TenantUpload'), 'spec'),
    keys: tenantUploadSpec,
    required: tenantUploadRequired,
  },
];

describe('schemas and model types agree', () => {
  it.each(pairs)('$name: same properties and required fields', (p) => {
    expect(props(p.at)).toEqual(keys(p.keys));
    expect([...(p.at.required ?? [])].sort()).toEqual(keys(p.required));
    expect(p.at.additionalProperties).toBe(false);
  });

  it('enums equal the wire-type names', () => {
    const flow = prop(schema('Flow'), schema('Flow'), 'spec');
    expect(flow.properties?.flags?.items?.enum).toEqual(Object.keys(FLOW_FLAGS));
    const rule = deref(pkg, pkgCustom.properties?.detectionRules?.items);
    expect(rule.properties?.operator?.enum).toEqual(Object.keys(DETECTION_OPERATORS));
    expect([...(rule.properties?.type?.enum ?? [])].sort()).toEqual(keys(ruleTypes));
    expect(pkgCustom.properties?.sourceType?.enum).toEqual([...SOURCE_TYPES]);
    expect(prop(pkg, pkgSpec, 'catalog').properties?.scope?.enum).toEqual(keys(scopes));
    expect(flow.properties?.scope?.enum).toEqual(keys(scopes));
    const dep = prop(schema('Deployment'), schema('Deployment'), 'spec');
    expect([...(dep.properties?.state?.enum ?? [])].sort()).toEqual(keys(states));
    expect((COMBINED_SCHEMA.properties as Record<string, S>).kind?.enum).toEqual([...SOURCE_KINDS]);
  });

  it('every kind pins apiVersion and kind', () => {
    for (const k of KINDS) {
      expect(schema(k).properties?.apiVersion?.const).toBe('packsync.dev/v1');
      expect(schema(k).properties?.kind?.const).toBe(k);
    }
  });

  it('metadata is defined identically in every kind', () => {
    for (const k of KINDS) expect(schema(k).$defs?.metadata).toEqual(pkg.$defs?.metadata);
  });

  it('window-pattern-matches-schema: the allow pattern the schema checks is the one window-values.ts tells in words (one message per bad entry)', () => {
    for (const k of ['Flow', 'Deployment'] as const) {
      const windows = prop(schema(k), prop(schema(k), schema(k), 'spec'), 'windows');
      expect(windows.properties?.allow?.items?.pattern).toBe(WINDOW_PATTERN);
    }
  });
});

const FILES = ['package.json', 'flow.json', 'deployment.json', 'tenant-upload.json', 'baseline.json', 'packsync.json'];

/** Every subschema that describes an object with properties (not the `if` conditions). */
function objectSchemas(s: unknown, path: string, out: { path: string; s: S }[]): void {
  if (Array.isArray(s)) {
    s.forEach((x, i) => objectSchemas(x, `${path}/${i}`, out));
    return;
  }
  if (s === null || typeof s !== 'object') return;
  const o = s as S;
  if (o.properties && !/\/if$/.test(path)) out.push({ path, s: o });
  for (const [k, v] of Object.entries(o)) objectSchemas(v, `${path}/${k}`, out);
}

describe('schema files', () => {
  it.each(FILES)('%s is draft 2020-12 with a stable $id, a description on every property and no unknown fields', async (f) => {
    const s = JSON.parse(await readFile(fileURLToPath(new URL(`../../schemas/v1/${f}`, import.meta.url)), 'utf8')) as S;
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(s.$id).toBe(`https://packsync.dev/schemas/v1/${f}`);
    expect(typeof s.description).toBe('string');
    const objects: { path: string; s: S }[] = [];
    objectSchemas(s, '#', objects);
    expect(objects.length).toBeGreaterThan(0);
    for (const { path, s: o } of objects) {
      for (const [name, p] of Object.entries(o.properties ?? {})) {
        expect(typeof p.description, `${path}/properties/${name} has a description`).toBe('string');
      }
      // A Baseline entry shares its settings through allOf, so it closes unevaluatedProperties
      // instead, and the shared settings stay open for the entries to add their own fields.
      if (!/\/if$/.test(path) && !path.endsWith('/$defs/settings') && o.type === 'object')
        expect(o.additionalProperties === false || o.unevaluatedProperties === false, `${path} closes its properties`).toBe(true);
    }
  });

  // The loader compiles them with validateSchema off (a start-up cost); this is where they are checked.
  it('every shipped schema is valid against the JSON Schema 2020-12 meta-schema', () => {
    const ajv = new Ajv2020({ strict: true, strictRequired: false });
    for (const s of [...Object.values(KIND_SCHEMAS), COMBINED_SCHEMA]) {
      expect(ajv.validateSchema(s), `${String(s.$id)}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    }
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'nope' } } })).toBe(false);
  });

  it('the combined schema selects the kind schema by kind', () => {
    const v = validators().combined;
    const ok = {
      apiVersion: 'packsync.dev/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { flow: 'f', package: 'p', state: 'running' },
    };
    expect(v(ok)).toBe(true);
    expect(v({ ...ok, spec: { ...ok.spec, state: 'runing' } })).toBe(false);
    expect(v({ ...ok, kind: 'Flow' })).toBe(false);
    expect(v({ ...ok, kind: 'Nope' })).toBe(false);
  });
});
