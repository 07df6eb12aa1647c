/** Small manifest repositories written by tests, against the simulator's small fleet (seed 1). */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureId } from '../../src/simulator/fixture-ids.js';
import { tempDir } from './repo.js';

export const PILOT_FIRST = fixtureId(1, 'patch-group', 'Pilot first');

export interface RepoOptions {
  state?: 'pending' | 'running' | 'stopped';
  wave?: number;
  contentRevision?: number;
  withCustom?: boolean;
}

export function packagesYaml(): string {
  return `apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: seven-zip-24-08
spec:
  catalog:
    app: 7-Zip
    version: "24.08"
    scriptTemplate: Default (PSADT 3.10.2)
---
apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: pwsh-7-4-6
spec:
  catalog:
    app: PowerShell 7
    version: "7.4.6"
`;
}

export function customYaml(): string {
  return `apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: contoso-agent
spec:
  custom:
    name: Contoso Agent
    publisher: Contoso Ltd
    version: 1.2.3
    sourceType: msi
    content: content/contoso-agent
---
apiVersion: packsync.dev/v1
kind: TenantUpload
metadata:
  name: contoso-agent-fabrikam
spec:
  tenant: fabrikam.onmicrosoft.com
  package: contoso-agent
`;
}

export function flowsYaml(): string {
  return `apiVersion: packsync.dev/v1
kind: Flow
metadata:
  name: seven-zip
spec:
  app: 7-Zip
  patchGroup: ${PILOT_FIRST}
  flags: [startNewVersionsAutomatically, radarTracking]
---
apiVersion: packsync.dev/v1
kind: Flow
metadata:
  name: pwsh
spec:
  app: PowerShell 7
`;
}

export function deploymentsYaml(o: RepoOptions = {}): string {
  const extra = [
    o.wave !== undefined ? `  wave: ${o.wave}` : '',
    o.contentRevision !== undefined ? `  contentRevision: ${o.contentRevision}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return `apiVersion: packsync.dev/v1
kind: Deployment
metadata:
  name: seven-zip-24-08
spec:
  flow: seven-zip
  package: seven-zip-24-08
  state: ${o.state ?? 'running'}
${extra}
---
apiVersion: packsync.dev/v1
kind: Deployment
metadata:
  name: pwsh-7-4-6
spec:
  flow: pwsh
  package: pwsh-7-4-6
  state: pending
`;
}

/** Writes a repository; returns its path. */
export async function writeRepo(o: RepoOptions = {}): Promise<string> {
  const dir = await tempDir('packsync-repo-');
  await writeFile(join(dir, 'packages.yaml'), packagesYaml());
  await writeFile(join(dir, 'flows.yaml'), flowsYaml());
  await writeFile(join(dir, 'deployments.yaml'), deploymentsYaml(o));
  if (o.withCustom) {
    await writeFile(join(dir, 'custom.yaml'), customYaml());
    await mkdir(join(dir, 'content/contoso-agent/bin'), { recursive: true });
    await writeFile(join(dir, 'content/contoso-agent/ContosoAgent.msi'), Buffer.alloc(5 * 1024 * 1024 + 17, 7));
    await writeFile(join(dir, 'content/contoso-agent/bin/config.json'), '{"server":"https://agent.contoso.example"}\n');
  }
  return dir;
}
