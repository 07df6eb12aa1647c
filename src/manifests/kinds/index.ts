/**
 * The kind registry (docs/architecture.md, "Manifest kinds"): every layer that needs a fact about a
 * kind asks here. Object kinds are planned, applied and kept in the state; authored kinds (Baseline)
 * only exist in git and expand into object kinds before validation (manifests/expand.ts).
 */
import { AUTHORED_KINDS, OBJECT_KINDS } from '../model.js';
import type { AuthoredKind, ObjectKind } from '../model.js';
import { BASELINE } from './baseline.js';
import { DEPLOYMENT } from './deployment.js';
import { FLOW } from './flow.js';
import { PACKAGE } from './package.js';
import { TENANT_UPLOAD } from './tenant-upload.js';
import type { AuthoredKindSpec, ObjectKindSpec } from './types.js';

export type { AuthoredKindSpec, ObjectKindSpec } from './types.js';

/** One descriptor per object kind; the compiler refuses a kind without one. */
export const OBJECT_KIND_SPECS: { readonly [K in ObjectKind]: ObjectKindSpec<K> } = {
  Package: PACKAGE,
  Flow: FLOW,
  Deployment: DEPLOYMENT,
  TenantUpload: TENANT_UPLOAD,
};

export function objectKindSpec<K extends ObjectKind>(kind: K): ObjectKindSpec<K> {
  return OBJECT_KIND_SPECS[kind];
}

export function isObjectKind(kind: string): kind is ObjectKind {
  return (OBJECT_KINDS as readonly string[]).includes(kind);
}

/** One descriptor per authored kind (expanded before validation, never in the state). */
export const AUTHORED_KIND_SPECS: { readonly [K in AuthoredKind]: AuthoredKindSpec<K> } = { Baseline: BASELINE };

export function isAuthoredKind(kind: string): kind is AuthoredKind {
  return (AUTHORED_KINDS as readonly string[]).includes(kind);
}

/** Object kinds in planning order (referenced kinds first). */
export const OBJECT_KINDS_IN_ORDER: readonly ObjectKind[] = [...OBJECT_KINDS].sort(
  (a, b) => OBJECT_KIND_SPECS[a].order - OBJECT_KIND_SPECS[b].order,
);
