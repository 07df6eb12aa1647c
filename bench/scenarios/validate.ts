/**
 * validate-5k: `packsync validate` over 5,000 manifest files (one document each: 1,000 packages,
 * 1,000 flows, 3,000 deployments), as a whole process and in-process (`loadManifests`, warm).
 * For scale, beside it: reading and YAML-parsing the same files and nothing else, in the same run.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { loadManifests } from '../../src/manifests/load.js';
import { CLI } from '../support.js';
import type { Scenario } from './types.js';
import { median, round } from './types.js';
import { tempDir } from '../../test/support/temp-dir.js';

const run = promisify(execFile);
const PACKAGES = 1000;
const FLOWS = 1000;
const DEPLOYMENTS = 3000;
const APPS = 200;

export async function writeRepo(): Promise<string> {
  const dir = await tempDir('packsync-validate-');
  for (const d of ['packages', 'flows', 'deployments']) await mkdir(join(dir, d));
  const head = '# yaml-language-server: $schema=../../schemas/v1/packsync.json\napiVersion: packsync.dev/v1\n';
  for (let i = 0; i < PACKAGES; i++) {
    await writeFile(
      join(dir, 'packages', `pkg-${i}.yaml`),
      `${head}kind: Package\nmetadata:\n  name: pkg-${i}\n  labels:\n    team: platform\nspec:\n  catalog:\n    app: "App ${i % APPS}"\n    version: "${1 + Math.floor(i / APPS)}.${i % 7}.0"\n    scope: machine\n`,
    );
  }
  for (let i = 0; i < FLOWS; i++) {
    await writeFile(
      join(dir, 'flows', `flow-${i}.yaml`),
      `${head}kind: Flow\nmetadata:\n  name: flow-${i}\nspec:\n  name: Flow ${i}\n  app: "App ${i % APPS}"\n  scope: machine\n  flags: [stopCurrentAndStartNew, radarTracking]\n  supersedenceHistoryCount: 2\n`,
    );
  }
  for (let i = 0; i < DEPLOYMENTS; i++) {
    // Flow f's k-th deployment: a distinct package (version) of the flow's own app.
    const f = i % FLOWS;
    const k = Math.floor(i / FLOWS);
    const pkg = (f % APPS) + APPS * ((Math.floor(f / APPS) + k) % (PACKAGES / APPS));
    await writeFile(
      join(dir, 'deployments', `dep-${i}.yaml`),
      `${head}kind: Deployment\nmetadata:\n  name: dep-${i}\nspec:\n  flow: flow-${f}\n  package: pkg-${pkg}\n  ${i % 3 === 0 ? 'state: pending\n' : `state: running\n  wave: ${1 + (i % 3)}\n`}`,
    );
  }
  return dir;
}

async function yamlOnly(dir: string): Promise<number> {
  let docs = 0;
  for (const sub of await readdir(dir)) {
    for (const f of await readdir(join(dir, sub))) docs += parseAllDocuments(await readFile(join(dir, sub, f), 'utf8')).length;
  }
  return docs;
}

export const validate5k: Scenario = async (log) => {
  const dir = await writeRepo();
  try {
    const processMs: number[] = [];
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      const out = await run(process.execPath, [CLI, 'validate', dir], { maxBuffer: 64 * 1024 * 1024 });
      if (i > 0) processMs.push(performance.now() - t); // the first run warms the page cache
      if (i === 0) log(`packsync validate: ${out.stdout.trim()}`);
    }
    const loadMs: number[] = [];
    const yamlMs: number[] = [];
    for (let i = 0; i < 4; i++) {
      let t = performance.now();
      const loaded = await loadManifests(dir);
      if (i > 0) loadMs.push(performance.now() - t);
      // The clean path is what is measured: not even a warning.
      if (loaded.problems.length > 0)
        throw new Error(`the generated repository has ${loaded.problems.length} problems, e.g. ${loaded.problems[0]?.message ?? ''}`);
      t = performance.now();
      const docs = await yamlOnly(dir);
      if (i > 0) yamlMs.push(performance.now() - t);
      if (docs !== PACKAGES + FLOWS + DEPLOYMENTS) throw new Error(`parsed ${docs} documents`);
    }
    const ms = median(processMs);
    const inProcess = median(loadMs);
    const yaml = median(yamlMs);
    log(`validate 5,000 files: ${round(ms)} ms as a process, ${round(inProcess)} ms in-process; read + YAML parse alone ${round(yaml)} ms`);
    return {
      metrics: {
        files: PACKAGES + FLOWS + DEPLOYMENTS,
        ms: round(ms),
        inProcessMs: round(inProcess),
        filesPerS: Math.round(((PACKAGES + FLOWS + DEPLOYMENTS) / ms) * 1000),
      },
      baseline: { yamlParseMs: round(yaml), ratio: round(inProcess / yaml, 2) },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
