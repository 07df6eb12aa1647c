/**
 * Regression (issue #12, fleet-10x no-op): a valid load composed every file twice. The loader drops
 * a file's composed YAML once its values are read, but the positions every valid manifest carries
 * (`fieldPositions`, a Deployment's `toWaveSource`) were then located by composing the file again,
 * and those second compositions stayed alive until the load returned: at 3,020 files the live heap
 * reached ~120 MiB of a 128 MiB limit and the load spent most of its time collecting garbage. Now
 * those positions are located during the one composition, with the same results.
 */
import { cp } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { spyParses } from '../support/parse-spy.js';
import { loadManifests } from '../../src/manifests/load.js';
import { parseYamlFile } from '../../src/manifests/yaml-source.js';
import { prelocated } from '../../src/manifests/positions.js';
import { tempDir } from '../support/temp-dir.js';

const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a valid load', () => {
  it('composes each manifest file once', async () => {
    const dir = await tempDir('packsync-compose-once-');
    await cp(EXAMPLES, dir, { recursive: true });
    const parses = spyParses();
    const r = await loadManifests(dir);
    parses.restore();
    expect(r.problems).toEqual([]);
    expect(r.desired!.deployments.length).toBeGreaterThan(0);
    expect(parses.files()).toBe(r.files.length);
    expect(parses.twice()).toEqual([]);
  });

  it('locates the prelocated paths exactly where a later lookup finds them', () => {
    const text = [
      'apiVersion: packsync.dev/v1',
      'kind: Deployment',
      'metadata: {name: d}',
      'spec:',
      '  flow: f',
      '  package:   p',
      '  promotion:',
      '    toWave:',
      '      3',
      '  wave: "Pilot first"',
      '',
    ].join('\n');
    const eager = parseYamlFile('d.yaml', text, { prelocate: prelocated }).documents[0]!;
    const lazy = parseYamlFile('d.yaml', text).documents[0]!;
    const paths = prelocated(eager.value).map((p) => p.segments);
    expect(paths).toEqual([
      ['spec', 'flow'],
      ['spec', 'package'],
      ['spec', 'wave'],
      ['spec', 'promotion', 'toWave'],
    ]);
    // The parsers locate into a Map (a cached document holds its positions compactly).
    expect((eager.located as ReadonlyMap<string, unknown>).size).toBe(4);
    expect((lazy.located as ReadonlyMap<string, unknown>).size).toBe(0);
    for (const p of paths) expect(eager.locate(p, 'value')).toEqual(lazy.locate(p, 'value'));
    expect(eager.locate(['spec', 'promotion', 'toWave'], 'value')).toEqual({ line: 9, column: 7 });
  });
});
