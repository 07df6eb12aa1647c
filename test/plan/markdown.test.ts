/**
 * `plan --output markdown` shows on GitHub the same text the text plan prints (black-box review):
 * gate lines, object keys, reasons, errors and manifest problems, whatever backticks, `<`, `>`,
 * pipes or emphasis characters they hold. Read with the CommonMark rules of test/support/markdown.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/manifests/model.js';
import { promotionRules } from '../../src/manifests/promotion-values.js';
import { formatPlanMarkdown, formatPlanText, formatProblemsMarkdown } from '../../src/plan/render/format.js';
import { codeSpan } from '../../src/plan/render/markdown.js';
import { evaluateGate } from '../../src/plan/gates/promotion.js';
import type { GateReport } from '../../src/plan/gates/promotion.js';
import { renderInline, tableCells } from '../support/markdown.js';
import { desired, live, liveDeployment, pkg, run } from './fixtures.js';

const REASON = 'Contoso: 38.4% failed > 10.0% over 250 devices; Fabrikam: 3 < 20';

function heldGate(key: string, reason = REASON): GateReport {
  return evaluateGate({
    key,
    rules: promotionRules({}),
    live: liveDeployment('d1', 'f1', 'p1', { currentWave: 1, waveCount: 3 }),
    waves: [],
    tenants: [],
    read: undefined,
    record: undefined,
    hold: { at: '2026-11-22T10:31:00.000Z', deploymentId: 'd1', wave: 1, reason, stopped: true },
    now: new Date('2026-11-22T12:00:00Z'),
  }).report;
}

/** The markdown's Rollouts items, in order. */
function rolloutItems(markdown: string): string[] {
  const lines = markdown.split('\n');
  const from = lines.indexOf('**Rollouts**');
  expect(from).toBeGreaterThan(0);
  return lines.slice(from + 2).filter((l) => l.startsWith('- '));
}

describe('plan --output markdown renders the text of the text plan', () => {
  it('a held gate line with backticks and `>` is one code span showing the line as is (regression: it ended early and showed `\\>`)', () => {
    const p = run(desired({ packages: [pkg('zip')] }), live());
    p.gates = [heldGate('Deployment/vlc'), heldGate('Deployment/zip', 'count `x` < 2 and ``y`` > 1 | *z*')];
    const lines = p.gates.map((g) => g.line);
    expect(lines[0]).toContain('`packsync resume Deployment/vlc --reason ...`');
    // Every gate line of the text plan, exactly.
    expect(formatPlanText(p)).toContain(lines.join('\n'));
    const items = rolloutItems(formatPlanMarkdown(p));
    expect(items).toHaveLength(2);
    for (const [i, item] of items.entries()) {
      const shown = renderInline(item.slice(2));
      expect(shown).toEqual({ text: lines[i], active: [] });
    }
  });

  it('reasons, errors and keys in the table keep their backticks, pipes and brackets, escaped outside code spans only', () => {
    const p = run(desired({ packages: [pkg('zip')] }), live());
    const o = p.objects.find((x) => x.key === 'Package/zip')!;
    const reason = 'run `packsync state rm Package/<x>` | then *retry* with a_b & [c]';
    o.reasons.push(reason);
    o.error = { code: 'REF_UNKNOWN', message: 'unknown app "7-Zip <beta>"\nsee `plan`' };
    const row = formatPlanMarkdown(p)
      .split('\n')
      .find((l) => l.includes('Package/zip'))!;
    const cells = tableCells(row).map(renderInline);
    expect(cells.map((c) => c.active)).toEqual([[], [], [], []]);
    expect(cells[1]!.text).toBe('Package/zip');
    const details = cells[3]!.text.split('\n');
    expect(details).toContain(reason);
    const at = `${o.source!.file}:${o.source!.line}:${o.source!.column}`;
    expect(details.slice(-2)).toEqual([`${at}: REF_UNKNOWN: unknown app "7-Zip <beta>"`, 'see `plan`']);
  });

  it('an invalid-manifests comment shows each file position and message as written', () => {
    const problem = (file: string, message: string): Problem => ({
      file,
      line: 3,
      column: 7,
      pointer: '/spec',
      rule: 'schema',
      message,
      severity: 'error',
    });
    const problems = [problem('odd`name.yaml', 'must be <= 3 | got *5*'), problem('a.yaml', 'unknown `kind`')];
    const items = formatProblemsMarkdown(problems)
      .split('\n')
      .filter((l) => l.startsWith('- '));
    expect(items.map((l) => renderInline(l.slice(2)))).toEqual([
      { text: 'odd`name.yaml:3:7: must be <= 3 | got *5*', active: [] },
      { text: 'a.yaml:3:7: unknown `kind`', active: [] },
    ]);
  });

  it('code spans: a fence longer than the text’s backticks, padding where an end is a backtick or both ends spaces, `\\|` in tables', () => {
    expect(codeSpan('a `b` c')).toBe('``a `b` c``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
    expect(codeSpan(' x ')).toBe('`  x  `');
    expect(codeSpan('a|b', { inTable: true })).toBe('`a\\|b`');
    for (const text of ['a `b` c', '`x`', ' x ', 'x ``` y', 'line\nbreak'])
      expect(renderInline(codeSpan(text)).text).toBe(text.replace('\n', ' '));
  });
});
