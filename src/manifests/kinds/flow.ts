/** `kind: Flow`: a catalog app or one package rolled out through a patch group (docs/manifests.md). */
import flowSchema from '../../../schemas/v1/flow.json' with { type: 'json' };
import type { ObjectKindSpec } from './types.js';

export const FLOW: ObjectKindSpec<'Flow'> = {
  kind: 'Flow',
  plural: 'Flows',
  schema: flowSchema,
  desired: 'flows',
  references: { package: 'Package' },
  liveFields: ['spec.app', 'spec.package', 'spec.patchGroup', 'spec.scriptTemplate'],
  foundLiveBy: 'its name (spec.name, else metadata.name)',
  order: 1,
};
