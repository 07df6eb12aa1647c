/** Temporary manifest repositories: copy examples/, edit files, remove files. */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.js';

export const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

// Re-exported: most suites take it from here with the repository helpers.
export { tempDir } from './temp-dir.js';

/** A copy of examples/ without the invalid cases, so tests can edit it freely. */
export async function copyExamples(): Promise<string> {
  const dir = await tempDir('packsync-repo-');
  await cp(EXAMPLES, dir, { recursive: true, filter: (src) => !src.includes(`${join('examples', 'invalid')}`) });
  return dir;
}

export async function editFile(file: string, from: string | RegExp, to: string): Promise<void> {
  const text = await readFile(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`editFile: ${String(from)} not found in ${file}`);
  await writeFile(file, next);
}

export async function removeFile(file: string): Promise<void> {
  await rm(file);
}
