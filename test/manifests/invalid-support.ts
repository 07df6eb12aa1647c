/** The repository every invalid case is loaded beside, so references in a case can resolve. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';

export const BASE_FILE = '00-base.yaml';

export const BASE_YAML = `apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: seven-zip-24-08
spec:
  catalog:
    app: 7-Zip
    version: "24.08"
---
apiVersion: packsync.dev/v1
kind: Package
metadata:
  name: pwsh-7-4-6
spec:
  catalog:
    app: PowerShell 7
    version: "7.4.6"
---
apiVersion: packsync.dev/v1
kind: Flow
metadata:
  name: seven-zip
spec:
  app: 7-Zip
---
apiVersion: packsync.dev/v1
kind: Flow
metadata:
  name: pwsh
spec:
  app: PowerShell 7
`;

/** A temp repository: the base manifests, a content directory `content/tool`, and `files`. */
export async function caseRepo(files: Record<string, string | Buffer>): Promise<string> {
  const dir = await tempDir('packsync-invalid-');
  await writeFile(join(dir, BASE_FILE), BASE_YAML);
  await mkdir(join(dir, 'content/tool'), { recursive: true });
  await writeFile(join(dir, 'content/tool/setup.msi'), 'fake msi\n');
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}
