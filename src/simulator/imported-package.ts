/** A catalog app's version as a package in the account: what an import creates, by a caller or by a flow that starts new versions itself. */
import { randomUUID } from 'node:crypto';
import { compareVersions } from '../util/version-order.js';
import type { PackageRec } from './account.js';
import { DURATIONS } from './account.js';
import { dotnetTime } from './clock.js';
import type { CatalogApp } from './fixtures.js';
import { PACKAGE_SOURCE } from './vocabulary.js';

export interface ImportOptions {
  now: number;
  machine: boolean;
  user: boolean;
  /** The app's newest version in the account, for `newVersionAvailable`/`latestVersion` as created. */
  latest: string;
  scriptTemplateId?: string | null;
}

export function importedPackage(a: CatalogApp, version: string, o: ImportOptions): PackageRec {
  const fileName = `${a.name} ${version}.psadt.zip`;
  const install = 'Deploy-Application.exe -DeploymentType Install';
  const uninstall = 'Deploy-Application.exe -DeploymentType Uninstall';
  return {
    id: randomUUID(),
    appId: a.id,
    created: dotnetTime(o.now),
    productName: a.name,
    manufacturer: a.publisherName,
    productVersion: version,
    state: 'Pending',
    fullProductName: `${a.name} ${version}`,
    fileName,
    size: 1_048_576 + ((a.name.length * 7919 + version.length * 104_729) % 50_000_000),
    downloadAvailable: false,
    newVersionAvailable: compareVersions(o.latest, version) > 0,
    latestVersion: o.latest,
    source: PACKAGE_SOURCE.catalog,
    isCustom: false,
    userScope: o.user,
    machineScope: o.machine,
    importInfo: {
      app: { publisher: a.publisherName, name: a.name, description: a.description },
      program: { installCommand: install, uninstallCommand: uninstall },
    },
    errorDetails: null,
    issues: [],
    outputFormats: [],
    sourceType: null,
    installCommand: install,
    uninstallCommand: uninstall,
    scriptTemplateId: o.scriptTemplateId ?? null,
    detectionRules: [],
    files: [{ fileName, fileSize: 0 }],
    createdMs: o.now,
    dueMs: o.now + DURATIONS.importQueued * 1000,
    uploads: {},
  };
}
