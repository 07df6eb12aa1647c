/** `kind: Package`: a catalog import or a custom package (docs/manifests.md). */
import packageSchema from '../../../schemas/v1/package.json' with { type: 'json' };
import type { ObjectKindSpec } from './types.js';

export const PACKAGE: ObjectKindSpec<'Package'> = {
  kind: 'Package',
  plural: 'Packages',
  schema: packageSchema,
  desired: 'packages',
  references: {},
  liveFields: [
    'spec.catalog.app',
    'spec.catalog.version',
    'spec.catalog.versionId',
    // Not resolved live, but read against the catalog by `packsync update`: its problems point at them.
    'spec.catalog.update.track',
    'spec.catalog.update.skip',
    'spec.catalog.scriptTemplate',
    'spec.custom.scriptTemplate',
  ],
  foundLiveBy: 'catalog app, version and scope, or custom name and version',
  order: 0,
};
