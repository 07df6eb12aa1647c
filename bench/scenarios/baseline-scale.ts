/**
 * baseline-scale: a Baseline of 200 apps × 15 rings (3,000 flows, 3,000 deployments, 200 packages)
 * loaded (expanded and validated) in-process, against the same 6,200 objects written out by hand
 * (one file per app, as `packsync render` prints them), and `packsync render` of the baseline as a
 * process (docs/baselines.md; issue target: ≤ 1.5× the hand-written load, render < 2 s).
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { loadManifests } from '../../src/manifests/load.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { CLI } from '../support.js';
import type { Scenario } from './types.js';
import { median, round } from './types.js';

const run = promisify(execFile);
const APPS = 200;
const RINGS = 15;

const ringId = (r: number): string => `${(0x10000000 + r).toString(16)}-0000-4000-8000-000000000000`;

async function writeBaseline(dir: string): Promise<void> {
  const rings = Array.from({ length: RINGS }, (_, r) => `    ring-${r + 1}: ${ringId(r)}`).join('\n');
  const apps = Array.from({ length: APPS }, (_, i) => `    - { app: "App ${i}", version: "${1 + (i % 9)}.${i % 7}.0" }`).join('\n');
  const text = `apiVersion: packsync.dev/v1\nkind: Baseline\nmetadata:\n  name: fleet\nspec:\n  rings:\n${rings}\n  defaults:\n    scope: machine\n    state: running\n    flags: [stopCurrentAndStartNew, radarTracking]\n  apps:\n${apps}\n  overrides:\n    - { rings: [ring-1], state: pending }\n    - { rings: [ring-15], apps: ["App 7"], state: stopped }\n`;
  await writeFile(join(dir, 'baseline.yaml'), text);
}

/** The expansion written out: one file per app holding its package, flows and deployments. */
async function writeHandWritten(from: string, dir: string): Promise<number> {
  const loaded = await loadManifests(from, { keepGenerated: true });
  if (!loaded.generated || loaded.problems.length > 0) throw new Error(`the baseline has problems: ${loaded.problems[0]?.message ?? ''}`);
  const byApp = new Map<string, unknown[]>();
  for (const d of loaded.generated) byApp.set(d.about.app, [...(byApp.get(d.about.app) ?? []), d.value]);
  for (const [app, docs] of byApp) {
    await writeFile(join(dir, `${app.replace(/\W+/g, '-')}.yaml`), docs.map((v) => stringify(v)).join('---\n'));
  }
  return loaded.generated.length;
}

async function timeLoad(dir: string, runs = 4): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const loaded = await loadManifests(dir);
    if (i > 0) ms.push(performance.now() - t); // the first run warms the page cache and the JIT
    if (!loaded.desired) throw new Error(`not valid: ${loaded.problems[0]?.message ?? ''}`);
  }
  return median(ms);
}

export const baselineScale: Scenario = async (log) => {
  const base = await tempDir('packsync-baseline-');
  const hand = await tempDir('packsync-handwritten-');
  try {
    await mkdir(join(base, '.git'));
    await mkdir(join(hand, '.git'));
    await writeBaseline(base);
    const objects = await writeHandWritten(base, hand);
    const baselineMs = await timeLoad(base);
    const handMs = await timeLoad(hand);
    const renderMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await run(process.execPath, [CLI, 'render', base], { maxBuffer: 256 * 1024 * 1024 });
      renderMs.push(performance.now() - t);
    }
    const render = median(renderMs);
    log(
      `${APPS} apps × ${RINGS} rings → ${objects} objects: expand + validate ${round(baselineMs)} ms, the same written out ${round(handMs)} ms (${round(baselineMs / handMs, 2)}×); render as a process ${round(render)} ms`,
    );
    return {
      metrics: { objects, baselineMs: round(baselineMs), renderMs: round(render) },
      baseline: { handWrittenMs: round(handMs), ratio: round(baselineMs / handMs, 2) },
    };
  } finally {
    await rm(base, { recursive: true, force: true });
    await rm(hand, { recursive: true, force: true });
  }
};
