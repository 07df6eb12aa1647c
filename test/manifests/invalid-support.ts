/** The repository every invalid case is loaded beside, so references in a case can resolve. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PWSH_FLOW, PWSH_PACKAGE, SEVEN_ZIP_FLOW, SEVEN_ZIP_PACKAGE, yamlDocs } from '../support/manifests.js';
import { tempDir } from '../support/temp-dir.js';

export const BASE_FILE = '00-base.yaml';

export const BASE_YAML = yamlDocs(SEVEN_ZIP_PACKAGE, PWSH_PACKAGE, SEVEN_ZIP_FLOW, PWSH_FLOW);

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
