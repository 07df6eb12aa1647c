/**
 * `packsync report --format markdown` shows what people, manifests and the API wrote as text
 * (docs/reports.md#formats): a resume reason holding HTML, a link, emphasis or an @mention is
 * neither markup nor a mention where the report is pasted (a ticket, a wiki, a pull request).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { gatedYaml } from '../support/manifests.js';
import { renderInline, tableCells } from '../support/markdown.js';
import { tempDir } from '../support/repo.js';
import type { SimEnv } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

const KEY = 'Deployment/seven-zip-24-08';
const REASON = 'fixed | <script>alert(1)</script> <img src=http://evil.example/x.png> [see](http://evil.example) *now* cc @org/team';

let s: SimEnv;
useSim((x) => (s = x), { timeScale: 60 });

async function apply(repo: string): Promise<void> {
  const r = await cli(['apply', '--auto-approve', repo], s.env);
  expect(r.code, r.stderr).toBe(0);
}

describe('report --format markdown', () => {
  it('markdown-report-escapes-user-text: a resume reason with HTML, a link, emphasis and a mention is shown as text in its cell', async () => {
    const repo = await tempDir('packsync-repo-');
    await writeFile(join(repo, 'all.yaml'), gatedYaml('soak: 6h\nminDevices: 20\nmaxFailureRate: 10%'));
    // Half of Contoso's installs fail: the gate stops the rollout on wave 1, and a person resumes it.
    await s.sim.admin('PUT', '/_sim/outcomes', {
      default: { failureRate: 0 },
      rules: [{ tenant: 'contoso.onmicrosoft.com', failureRate: 0.5 }],
    });
    await apply(repo);
    await apply(repo);
    await s.sim.advance(2 * 3600);
    await apply(repo);
    const resumed = await cli(['resume', KEY, '--reason', REASON], s.env);
    expect(resumed.code, resumed.stderr).toBe(0);

    const md = await cli(['report', '--from', '2020-01-01', '--format', 'markdown'], s.env);
    expect(md.code, md.stderr).toBe(0);
    const rows = md.stdout.split('\n').filter((l) => l.startsWith('| ') && l.includes('resume'));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const cells = tableCells(row);
      // Rollout, When, Verdict, Reason: the pipe in the reason did not split the row.
      expect(cells).toHaveLength(4);
      const shown = renderInline(cells[3]!);
      expect(shown.active).toEqual([]);
      // The text as written, the mention broken by an invisible word joiner.
      expect(shown.text).toBe(REASON.replace('@org', '@\u2060org'));
    }
    expect(md.stdout).not.toMatch(/(?<!\\)<(script|img)/);
  });
});
