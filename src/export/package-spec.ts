/**
 * A live package's manifest spec, from its details (`GET /v1/package/{id}`): only the details carry
 * commands, detection rules and the script template. The planner hashes exactly the fields a
 * manifest sets, so every field written here must be one the service really holds, written the way
 * `customTarget` / `catalogTarget` (src/plan/kinds/plan-packages.ts) read it back; then adopting the
 * export records the hash of the package as it is, and writing the true values later is a no-op.
 */
import { DETECTION_OPERATORS } from '../api/wire/index.js';
import type { DetectionOperatorName, MemDetectionRule, V1PackageDetailsViewModel } from '../api/wire/index.js';
import type { CatalogPackageSpec, CustomPackageSpec, DetectionRule } from '../manifests/model.js';

/** Why a live package cannot be written as a manifest that adopts it unchanged. */
export class NotExportable extends Error {}

const RULE_FIELDS = [
  'path',
  'fileName',
  'is32Bit',
  'targetVersion',
  'keyPath',
  'valueName',
  'productCode',
  'scriptContent',
  'description',
] as const;

function operatorName(op: unknown): DetectionOperatorName {
  const names = Object.keys(DETECTION_OPERATORS) as DetectionOperatorName[];
  // Numbers are what the service sends; a name is accepted too, in case a service spells it out.
  const found =
    typeof op === 'number'
      ? names.find((n) => DETECTION_OPERATORS[n] === op)
      : names.find((n) => n.toLowerCase() === String(op).toLowerCase());
  if (!found) throw new NotExportable(`detection rule operator ${JSON.stringify(op)} has no manifest name`);
  return found;
}

function detectionRule(r: MemDetectionRule): DetectionRule {
  // Only the manifest's rule fields: anything else the service adds would fail schema validation.
  const picked: Partial<Record<(typeof RULE_FIELDS)[number], string | boolean>> = {};
  for (const k of RULE_FIELDS) {
    const v = r[k];
    // Keys the service left null or empty were not set when the package was created.
    if (v !== undefined && v !== null && v !== '') picked[k] = v;
  }
  // Each picked key has the same type in MemDetectionRule and DetectionRule.
  const out: DetectionRule = { type: r.type, ...(picked as Omit<DetectionRule, 'type' | 'operator'>) };
  if (r.operator !== undefined && r.operator !== null) out.operator = operatorName(r.operator);
  return out;
}

/**
 * Defaults are left out (publisher '', userContext false, no rules): a hand-written manifest
 * usually omits them, and the planner tells an omitted field from its default value.
 * `runAnalysis` is not returned by the service, so it cannot be written (docs/manifests.md).
 */
export function customSpec(d: V1PackageDetailsViewModel, templateRef: (id: string) => string, content: string): CustomPackageSpec {
  const spec: CustomPackageSpec = { name: d.productName, version: d.productVersion, sourceType: d.sourceType ?? 'msi' };
  if (d.manufacturer) spec.publisher = d.manufacturer;
  if (d.installCommand) spec.installCommand = d.installCommand;
  if (d.uninstallCommand) spec.uninstallCommand = d.uninstallCommand;
  if (d.userScope && !d.machineScope) spec.userContext = true;
  if (d.scriptTemplateId) spec.scriptTemplate = templateRef(d.scriptTemplateId);
  // A service that leaves the list out altogether is read as "no rules", not as an error.
  const rules = (d.detectionRules as MemDetectionRule[] | null | undefined) ?? [];
  if (rules.length > 0) spec.detectionRules = rules.map(detectionRule);
  if ((spec.sourceType === 'exe' || spec.sourceType === 'zip') && !spec.installCommand) {
    throw new NotExportable(`a ${spec.sourceType} package needs installCommand and the service returned none`);
  }
  spec.content = content;
  return spec;
}

export function catalogSpec(
  d: V1PackageDetailsViewModel,
  appRef: (id: string) => string,
  templateRef: (id: string) => string,
): CatalogPackageSpec {
  if (!d.appId) throw new NotExportable('catalog package without an app id');
  // A package imported for both scopes has no manifest spelling (scope is machine | user).
  if (d.machineScope && d.userScope) throw new NotExportable('imported for both machine and user scope, which a manifest cannot express');
  const spec: CatalogPackageSpec = { app: appRef(d.appId), version: d.productVersion, scope: d.userScope ? 'user' : 'machine' };
  if (d.scriptTemplateId) spec.scriptTemplate = templateRef(d.scriptTemplateId);
  return spec;
}
