/** `packsync render --app`: an app as written, its slug, or the entry's own `name:` (docs/baselines.md). */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/repo.js';

const BASELINE = [
  'apiVersion: packsync.dev/v1',
  'kind: Baseline',
  'metadata: { name: std }',
  'spec:',
  '  rings: { pilot: Pilot first }',
  '  defaults: { scope: machine }',
  '  apps:',
  '    - { app: Notepad++, version: 8.7.1, name: npp }',
  "    - { app: 7-Zip, version: '24.08' }",
  '',
].join('\n');

describe('render --app', () => {
  it("render-app-name-part: takes an entry's name: part, as its help says (regression: a usage error)", async () => {
    const dir = await tempDir('packsync-render-');
    await writeFile(join(dir, 'baseline.yaml'), BASELINE);
    for (const app of ['npp', 'Notepad++', 'notepad++']) {
      const r = await cli(['render', dir, '--app', app], {});
      expect(r.code, `${app}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('Flow/std.npp.pilot');
      expect(r.stdout).not.toContain('7-zip');
    }
    expect((await cli(['render', dir, '--app', '7-zip'], {})).stdout).toContain('Flow/std.7-zip.pilot');
    expect((await cli(['render', dir, '--app', 'nope'], {})).code).toBe(1);
  });
});
