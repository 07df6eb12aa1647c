/**
 * What the state commands say about a key the state does not hold, and about a damaged snapshot:
 * what is wrong, in words (regressions from an audit of the built CLI).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStateKey, requireKnown } from '../../src/cli/state-keys.js';
import { emptyInventory } from '../../src/state/inventory-types.js';
import type { Inventory } from '../../src/state/inventory-types.js';
import { cli } from '../support/cli.js';

const withFlow = (): Inventory => ({
  ...emptyInventory(),
  objects: {
    'Flow/pwsh': { kind: 'Flow', name: 'pwsh', id: 'f1', specHash: 'h', spec: {}, revision: null, updatedAt: 't' },
  },
});

const message = (f: () => void): string => {
  try {
    f();
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  return 'no error';
};

describe('state key and snapshot messages', () => {
  it('state-key-shouting: a key not in the state is named by its kind and name, not as `KEY "…"`', () => {
    const inv = withFlow();
    expect(message(() => requireKnown(inv, parseStateKey('Deployment/nope', 'KEY'), '/s'))).toBe(
      'STATE_KEY: Deployment "nope" is not in the state in /s; `packsync state list` shows every key',
    );
    expect(message(() => requireKnown(inv, parseStateKey('Flow/pwsj', 'OLD'), '/s'))).toMatch(
      /^STATE_KEY: Flow "pwsj" is not in the state in \/s \(did you mean "Flow\/pwsh"\?\)/,
    );
    expect(message(() => requireKnown(inv, parseStateKey('Flow/pwsh#f0', 'KEY'), '/s'))).toMatch(
      /^STATE_KEY: the superseded entry "Flow\/pwsh#f0" is not in the state in \/s/,
    );
    expect(message(() => requireKnown(emptyInventory(), parseStateKey('Flow/a', 'KEY'), '/s'))).toBe(
      'STATE_KEY: Flow "a" is not in the state: the state in /s is empty',
    );
  });

  it('snapshot-objects-null-says-version: an inventory.json whose objects is null says so, not "unknown format (version 1 …)"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inv-'));
    for (const objects of ['null', '[]', '"x"']) {
      await writeFile(join(dir, 'inventory.json'), `{"version":1,"objects":${objects}}`);
      const r = await cli(['state', 'list', '--state-dir', dir], {});
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('INVENTORY_UNREADABLE');
      expect(r.stderr).toContain(
        'inventory.json has an unknown format (objects is not an object); restore it from a backup or move it away',
      );
      expect(r.stderr).not.toContain('version 1');
    }
  });
});
