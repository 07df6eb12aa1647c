/**
 * The text plan makes visible only what it prints (plan/render/format.ts): every printed part of an
 * object (key, fields, reasons, destroys, error and its source, each action's description) must
 * still show a control character as an escape, never raw (docs/errors.md, "Text output").
 */
import { describe, expect, it } from 'vitest';
import { formatPlanText } from '../../src/plan/render/format.js';
import { OP } from '../../src/plan/ops.js';
import type { Plan } from '../../src/plan/types.js';

const ESC = '\u001b[2J';
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

describe('formatPlanText', () => {
  it('shows control characters in every printed part of an object as escapes', () => {
    const plan = {
      objects: [
        {
          key: `Deployment/a${ESC}`,
          kind: 'Deployment',
          name: 'a',
          change: 'update',
          fields: [{ field: 'state', from: `x${ESC}`, to: { nested: `y${ESC}` } }],
          reasons: [`reason${ESC}`],
          destroys: [{ key: `Deployment/b${ESC}`, id: `id${ESC}`, status: `Running\u202e`, wave: '1' }],
          error: { code: 'API_ERROR', message: `message${ESC}` },
          source: { file: `f${ESC}.yaml`, line: 1, column: 1 },
          actions: ['a1', 'a2'],
        },
      ],
      actions: [
        { id: 'a1', key: 'Deployment/a', op: OP.start, description: `start${ESC}`, deploymentRef: { id: 'd' } },
        // A record is not printed: its entry, whatever it holds, is not shown.
        { id: 'a2', key: 'Deployment/a', op: OP.record, description: `record${ESC}`, entry: { name: ESC } },
      ],
      summary: { create: 0, update: 1, delete: 0, unchanged: 0 },
      errors: [`plan error${ESC}`],
    } as unknown as Plan;
    const text = formatPlanText(plan);
    expect(text).not.toMatch(RAW);
    for (const shown of [
      'Deployment/a\\u001b[2J',
      'x\\u001b[2J',
      'y\\\\u001b[2J', // inside a JSON value: the escape's backslash is itself escaped
      '# reason\\u001b[2J',
      'Deployment/b\\u001b[2J (deployment id\\u001b[2J, Running\\u202e, wave 1)',
      'f\\u001b[2J.yaml:1:1: API_ERROR: message\\u001b[2J',
      '- start\\u001b[2J',
      'Error: plan error\\u001b[2J',
    ])
      expect(text).toContain(shown);
    expect(text).not.toContain('record');
  });
});
