/**
 * The value tables (numeric codes, bitmasks, state names) are guesses about the real service, so
 * the client and the simulator each keep their own (docs/architecture.md) and this test pins both against
 * the tables in `docs/api-model.md`. A wrong number on either side fails here instead of being
 * mirrored by the fake the client is tested against.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as client from '../../src/api/wire/index.js';
import * as sim from '../../src/simulator/vocabulary.js';

type Table = Record<string, number>;

/** `### \`Name\`` headings under `## Value tables`, each followed by `| Name | Value | … |` rows. */
function parseValueTables(markdown: string): Map<string, Table> {
  const start = markdown.indexOf('\n## Value tables');
  if (start < 0) throw new Error('docs/api-model.md has no "## Value tables" section');
  const rest = markdown.slice(start + 1);
  const next = rest.indexOf('\n## ', 1);
  const section = next < 0 ? rest : rest.slice(0, next);
  const tables = new Map<string, Table>();
  for (const block of section.split('\n### ').slice(1)) {
    const [heading, ...lines] = block.split('\n');
    const name = /^`([^`]+)`/.exec(heading!)?.[1];
    if (!name) throw new Error(`value table heading without a \`name\`: ${heading}`);
    const table: Table = {};
    for (const line of lines.filter((l) => l.startsWith('|')).slice(2)) {
      const cells = line.split('|').map((c) => c.trim());
      const key = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
      const value = Number(cells[2]);
      if (!key || !Number.isInteger(value)) throw new Error(`bad row in value table ${name}: ${line}`);
      if (key in table) throw new Error(`value table ${name} lists ${key} twice`);
      table[key] = value;
    }
    tables.set(name, table);
  }
  return tables;
}

const doc = parseValueTables(await readFile(new URL('../../docs/api-model.md', import.meta.url), 'utf8'));
const table = (name: string): Table => {
  const t = doc.get(name);
  if (!t) throw new Error(`docs/api-model.md has no value table ${name}`);
  return t;
};
const names = (name: string): string[] => Object.keys(table(name)).sort();
const sorted = (xs: readonly string[]): string[] => [...xs].sort();

describe('value tables match docs/api-model.md', () => {
  it('the doc has every table, each with distinct values', () => {
    expect([...doc.keys()].sort()).toEqual(
      [
        'ContentUpdateStatus',
        'DeploymentStatus',
        'DetectionOperator',
        'DownloadFormat',
        'FlowFlags',
        'PackageSource',
        'PackageState',
        'SourceType',
        'TaskState',
        'V1InstallerScope',
        'WaveFlags',
      ].sort(),
    );
    for (const [name, t] of doc) expect(new Set(Object.values(t)).size, name).toBe(Object.keys(t).length);
  });

  it("the client's tables (src/api/wire/codes.ts)", () => {
    expect(client.PACKAGE_STATE_CODES).toEqual(table('PackageState'));
    expect(client.TASK_STATE_CODES).toEqual(table('TaskState'));
    expect(client.DEPLOYMENT_STATUS_CODES).toEqual(table('DeploymentStatus'));
    expect(client.CONTENT_UPDATE_STATUS_CODES).toEqual(table('ContentUpdateStatus'));
    expect(client.INSTALLER_SCOPE).toEqual(table('V1InstallerScope'));
    expect(client.FLOW_FLAGS).toEqual(table('FlowFlags'));
    expect(client.DETECTION_OPERATORS).toEqual(table('DetectionOperator'));
    expect(sorted(client.SOURCE_TYPES)).toEqual(names('SourceType'));
    expect(client.PACKAGE_SOURCE).toEqual(table('PackageSource'));
    expect(client.WAVE_FLAGS).toEqual(table('WaveFlags'));
    // The derived name lists are the code tables' names.
    expect(sorted(client.PACKAGE_STATES)).toEqual(names('PackageState'));
    expect(sorted(client.TASK_STATES)).toEqual(names('TaskState'));
    expect(sorted(client.DEPLOYMENT_STATUSES)).toEqual(names('DeploymentStatus'));
  });

  it("the simulator's tables (src/simulator/vocabulary.ts)", () => {
    expect(sorted(sim.PACKAGE_STATES)).toEqual(names('PackageState'));
    expect(sorted(sim.DEPLOYMENT_STATUSES)).toEqual(names('DeploymentStatus'));
    expect(sim.INSTALLER_SCOPE).toEqual(table('V1InstallerScope'));
    expect(sim.FLOW_FLAGS).toEqual(table('FlowFlags'));
    expect(sim.DETECTION_OPERATORS).toEqual(table('DetectionOperator'));
    expect(sim.SOURCE_TYPES).toEqual(table('SourceType'));
    expect(sim.PACKAGE_SOURCE).toEqual(table('PackageSource'));
    expect(sim.DOWNLOAD_FORMATS).toEqual(table('DownloadFormat'));
  });

  it('the simulator imports only types from src/api, never a value table', async () => {
    const dir = new URL('../../src/simulator/', import.meta.url).pathname;
    const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const offenders: string[] = [];
    for (const f of files) {
      const text = await readFile(join(dir, f), 'utf8');
      for (const m of text.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'((?:\.\.\/)+api\/[^']+)'/gms)) {
        if (!m[1]) offenders.push(`${f}: ${m[2]}`);
      }
    }
    expect(files.length).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });
});

describe('parseValueTables', () => {
  it('reads rows and refuses a malformed one, so the pin cannot pass on an empty parse', () => {
    const md =
      '# x\n\n## Value tables\n\n### `A`\n\n| Name | Value | |\n|---|---|---|\n| `one` | 1 | seen |\n| `two` | 2 | |\n\n## Next\n\n### `B`\n';
    expect([...parseValueTables(md)]).toEqual([['A', { one: 1, two: 2 }]]);
    expect(() => parseValueTables(md.replace('| 2 |', '| two |'))).toThrow(/bad row in value table A/);
    expect(() => parseValueTables('# nothing')).toThrow(/no "## Value tables"/);
  });
});
