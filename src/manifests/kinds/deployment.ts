/** `kind: Deployment`: one package in one flow, its state and wave (docs/manifests.md). */
import deploymentSchema from '../../../schemas/v1/deployment.json' with { type: 'json' };
import type { ObjectKindSpec } from './types.js';

export const DEPLOYMENT: ObjectKindSpec<'Deployment'> = {
  kind: 'Deployment',
  plural: 'Deployments',
  schema: deploymentSchema,
  desired: 'deployments',
  references: { flow: 'Flow', package: 'Package' },
  liveFields: ['spec.flow', 'spec.package', 'spec.version', 'spec.wave'],
  foundLiveBy: 'its flow and package',
  order: 2,
};
