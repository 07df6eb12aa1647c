/**
 * examples/ validates; every folder in examples/invalid/ (skipped by examples/.packsyncignore)
 * fails with exactly the output written next to it in expected.txt.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { EXAMPLES } from '../support/repo.js';

const INVALID = join(EXAMPLES, 'invalid');
const cases = (await readdir(INVALID, { withFileTypes: true }))
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe('examples', () => {
  it('validates examples/ (exit 0), skipping examples/invalid through .packsyncignore', async () => {
    const r = await cli(['validate', EXAMPLES], {});
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/valid \(6 packages, 8 flows, 8 deployments, 1 tenant upload, 1 baseline\)/);
  });

  it('has at least ten classes of mistake', () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });

  it.each(cases)('examples/invalid/%s fails with its expected output', async (name) => {
    const dir = join(INVALID, name);
    const r = await cli(['validate', '.'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(await readFile(join(dir, 'expected.txt'), 'utf8'));
  });
});
