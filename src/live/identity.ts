/**
 * How a live package is identified, whoever asks: the planner (adoption, intents), the applier
 * (resolving a create whose answer was lost) and export (one manifest per live identity).
 */
import type { V1PackageViewModel } from '../api/wire/index.js';

/**
 * How a live package is recognised. A catalog package is its app, version and installer scope:
 * machine- and user-scope imports of one version are different packages (regression: without the
 * scope, a lost import answer adopted the sibling scope's package).
 */
export function packageNaturalKey(
  p: Pick<V1PackageViewModel, 'isCustom' | 'appId' | 'productName' | 'productVersion' | 'machineScope' | 'userScope'>,
): string {
  return p.isCustom ? `custom|${p.productName}|${p.productVersion}` : `catalog|${p.appId ?? ''}|${p.productVersion}|${scopeOfPackage(p)}`;
}

/** The V1InstallerScope number a live package was imported with (1 machine, 2 user, 4 both). */
export function scopeOfPackage(p: Pick<V1PackageViewModel, 'machineScope' | 'userScope'>): number {
  return p.machineScope && p.userScope ? 4 : p.userScope ? 2 : 1;
}
