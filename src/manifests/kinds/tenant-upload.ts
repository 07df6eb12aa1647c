/** `kind: TenantUpload`: a package uploaded to one tenant's Intune (docs/manifests.md). */
import tenantUploadSchema from '../../../schemas/v1/tenant-upload.json' with { type: 'json' };
import type { ObjectKindSpec } from './types.js';

export const TENANT_UPLOAD: ObjectKindSpec<'TenantUpload'> = {
  kind: 'TenantUpload',
  plural: 'TenantUploads',
  schema: tenantUploadSchema,
  desired: 'tenantUploads',
  references: { package: 'Package' },
  liveFields: ['spec.tenant', 'spec.package'],
  foundLiveBy: 'its tenant and package',
  order: 3,
};
