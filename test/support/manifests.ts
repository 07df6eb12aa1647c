/**
 * Manifest YAML written by tests, against the simulator's small fleet (seed 1): one document
 * builder per kind, the standard two-package repository (7-Zip 24.08 and PowerShell 7.4.6) built
 * from them, and the gated one-deployment repository.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { createRepo } from './git.js';
import type { TestRepo } from './git.js';
import { tempDir } from './repo.js';

export const PILOT_FIRST = fixtureId(1, 'patch-group', 'Pilot first');

export interface RepoOptions {
  state?: 'pending' | 'running' | 'stopped';
  /** The PowerShell deployment's state (default pending). */
  pwshState?: 'pending' | 'running' | 'stopped';
  wave?: number;
  contentRevision?: number;
  withCustom?: boolean;
}

const indent = (lines: readonly string[], by = '  '): string[] => lines.map((l) => `${by}${l}`);

/** One document: `meta` are extra lines under metadata (after name), `spec` the lines under spec. */
export function manifestDoc(kind: string, name: string, spec: readonly string[], meta: readonly string[] = []): string {
  return [
    `apiVersion: packsync.dev/v1`,
    `kind: ${kind}`,
    `metadata:`,
    `  name: ${name}`,
    ...indent(meta),
    `spec:`,
    ...indent(spec),
    '',
  ].join('\n');
}

/** Documents of one file, separated by `---`. */
export const yamlDocs = (...docs: string[]): string => docs.join('---\n');

export const catalogPackageDoc = (name: string, app: string, version: string, more: readonly string[] = []): string =>
  manifestDoc('Package', name, ['catalog:', `  app: ${app}`, `  version: "${version}"`, ...indent(more)]);

export const flowDoc = (name: string, app: string, more: readonly string[] = [], meta: readonly string[] = []): string =>
  manifestDoc('Flow', name, [`app: ${app}`, ...more], meta);

export const deploymentDoc = (name: string, flow: string, state: string, more: readonly string[] = []): string =>
  manifestDoc('Deployment', name, [`flow: ${flow}`, `package: ${name}`, `state: ${state}`, ...more]);

export const SEVEN_ZIP_PACKAGE = catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08');
export const PWSH_PACKAGE = catalogPackageDoc('pwsh-7-4-6', 'PowerShell 7', '7.4.6');
export const SEVEN_ZIP_FLOW = flowDoc('seven-zip', '7-Zip');
export const PWSH_FLOW = flowDoc('pwsh', 'PowerShell 7');

export function packagesYaml(): string {
  return yamlDocs(catalogPackageDoc('seven-zip-24-08', '7-Zip', '24.08', ['scriptTemplate: Default (PSADT 3.10.2)']), PWSH_PACKAGE);
}

export function customYaml(): string {
  return yamlDocs(
    manifestDoc('Package', 'contoso-agent', [
      'custom:',
      ...indent(['name: Contoso Agent', 'publisher: Contoso Ltd', 'version: 1.2.3', 'sourceType: msi', 'content: content/contoso-agent']),
    ]),
    manifestDoc('TenantUpload', 'contoso-agent-fabrikam', ['tenant: fabrikam.onmicrosoft.com', 'package: contoso-agent']),
  );
}

/** The standard flows; `sevenZip` adds spec lines to the 7-Zip flow (`promotion: {...}`, `supersedenceHistoryCount: 1`). */
export function flowsYaml(sevenZip: readonly string[] = []): string {
  return yamlDocs(
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`, 'flags: [startNewVersionsAutomatically, radarTracking]', ...sevenZip]),
    PWSH_FLOW,
  );
}

export function deploymentsYaml(o: RepoOptions = {}): string {
  const extra = [
    ...(o.wave !== undefined ? [`wave: ${o.wave}`] : []),
    ...(o.contentRevision !== undefined ? [`contentRevision: ${o.contentRevision}`] : []),
  ];
  return yamlDocs(
    deploymentDoc('seven-zip-24-08', 'seven-zip', o.state ?? 'running', extra),
    deploymentDoc('pwsh-7-4-6', 'pwsh', o.pwshState ?? 'pending'),
  );
}

/** One gated deployment: 7-Zip 24.08 through the "Pilot first" patch group (3 waves); `promotion` is the block's body, one `key: value` per line. */
export function gatedYaml(promotion: string): string {
  const body = promotion
    .trim()
    .split('\n')
    .map((l) => `  ${l.trim()}`);
  return yamlDocs(
    SEVEN_ZIP_PACKAGE,
    flowDoc('seven-zip', '7-Zip', [`patchGroup: ${PILOT_FIRST}`]),
    deploymentDoc('seven-zip-24-08', 'seven-zip', 'running', ['promotion:', ...body]),
  );
}

/** Writes the three standard files (packages, flows, deployments) into `dir`. */
export async function writeManifests(dir: string, o: RepoOptions = {}): Promise<void> {
  await writeFile(join(dir, 'packages.yaml'), packagesYaml());
  await writeFile(join(dir, 'flows.yaml'), flowsYaml());
  await writeFile(join(dir, 'deployments.yaml'), deploymentsYaml(o));
}

/** The state keys of what the standard repository (packages, flows, deployments) owns, sorted. */
export const STANDARD_KEYS: readonly string[] = [
  'Deployment/pwsh-7-4-6',
  'Deployment/seven-zip-24-08',
  'Flow/pwsh',
  'Flow/seven-zip',
  'Package/pwsh-7-4-6',
  'Package/seven-zip-24-08',
];

/** A git repository whose seed commit holds the standard manifests (packages, flows, deployments). */
export function manifestRepo(o: RepoOptions = {}): Promise<TestRepo> {
  return createRepo((dir) => writeManifests(dir, o));
}

/** Writes a repository; returns its path. */
export async function writeRepo(o: RepoOptions = {}): Promise<string> {
  const dir = await tempDir('packsync-repo-');
  await writeManifests(dir, o);
  if (o.withCustom) await writeCustomUpload(dir);
  return dir;
}

/** custom.yaml (a custom package and its tenant upload) and its content folder: a 5 MiB MSI and a config file. */
export async function writeCustomUpload(dir: string): Promise<void> {
  await writeFile(join(dir, 'custom.yaml'), customYaml());
  await mkdir(join(dir, 'content/contoso-agent/bin'), { recursive: true });
  await writeFile(join(dir, 'content/contoso-agent/ContosoAgent.msi'), Buffer.alloc(5 * 1024 * 1024 + 17, 7));
  await writeFile(join(dir, 'content/contoso-agent/bin/config.json'), '{"server":"https://agent.contoso.example"}\n');
}
