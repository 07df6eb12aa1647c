/**
 * `kind: Baseline` through the built CLI against the simulator (docs/baselines.md): render with
 * --explain, apply converging, a renamed baseline planned as moves and applied with no API write,
 * the blast guard (--allow-shrink), an exception that expires by the service's clock, and bad input
 * refused at FILE:LINE:COL with nothing written.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Inventory } from '../../src/state/inventory-types.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { spawnCli } from '../support/spawn-cli.js';

const PILOT = '2e346735-40e0-4c05-9733-4aece1ad5b00';
const BROAD = '76aae74d-9520-4027-a476-94b19bb0471e';

let sim: TestSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Opts {
  name?: string;
  apps?: string[];
  maxRemoved?: number;
  exceptions?: string;
  overrides?: string;
}

const APPS = [
  '{ app: Notepad++, version: 8.7.1 }',
  '{ app: Google Chrome, version: 131.0.6778.86 }',
  '{ app: VLC media player, version: 3.0.21 }',
];

function baseline(o: Opts = {}): string {
  return [
    'apiVersion: packsync.dev/v1',
    'kind: Baseline',
    'metadata:',
    `  name: ${o.name ?? 'standard-apps'}`,
    'spec:',
    ...(o.maxRemoved !== undefined ? [`  maxRemoved: ${o.maxRemoved}`] : []),
    '  rings:',
    `    pilot: ${PILOT}`,
    `    broad: ${BROAD}`,
    '  defaults:',
    '    scope: machine',
    '    state: pending',
    '  apps:',
    ...(o.apps ?? APPS).map((a) => `    - ${a}`),
    ...(o.overrides !== undefined ? ['  overrides:', o.overrides] : []),
    ...(o.exceptions !== undefined ? ['  exceptions:', o.exceptions] : []),
    '',
  ].join('\n');
}

async function repoWith(text: string): Promise<{ repo: string; file: string }> {
  const repo = await tempDir('packsync-baseline-');
  await mkdir(join(repo, '.git'));
  const file = join(repo, 'baseline.yaml');
  await writeFile(file, text);
  return { repo, file };
}

async function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCli(args, env).done;
}

async function setup(): Promise<{ sim: TestSim; env: Record<string, string>; stateDir: string }> {
  sim = await startTestSimulator();
  const stateDir = await tempDir('packsync-state-');
  return { sim, stateDir, env: { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir } };
}

async function inventory(stateDir: string): Promise<Inventory> {
  return JSON.parse(await readFile(join(stateDir, 'inventory.json'), 'utf8')) as Inventory;
}

describe('Baseline', () => {
  it('render prints the expanded objects with stable keys; --explain names the file:line and layer of each field; --ring and --app filter', async () => {
    const { repo } = await repoWith(baseline({ overrides: '    - { rings: [broad], state: running }' }));
    const all = await run(['render', repo], {});
    expect(all.code, all.stderr).toBe(0);
    const keys = [...all.stdout.matchAll(/^# (\S+):/gm)].map((m) => m[1] ?? '');
    expect(keys).toContain('Flow/standard-apps.notepad.pilot');
    expect(keys).toContain('Deployment/standard-apps.google-chrome.broad');
    expect(keys).toContain('Package/standard-apps.vlc-media-player');
    expect(keys.filter((k) => k.startsWith('Flow/'))).toHaveLength(6);

    const explained = await run(['render', repo, '--explain', '--ring', 'broad', '--app', 'Google Chrome'], {});
    expect(explained.code, explained.stderr).toBe(0);
    // state: defaults say pending (line 11), the broad override says running (line 17).
    expect(explained.stdout).toMatch(/state: running {2}# .*baseline\.yaml:17:\d+ \(overrides\[0\]\)/);
    expect(explained.stdout).toMatch(/scope: machine {2}# .*baseline\.yaml:10:\d+ \(defaults\)/);
    expect(explained.stdout).toMatch(new RegExp(`patchGroup: ${BROAD} {2}# .*baseline\\.yaml:8:\\d+ \\(rings\\)`));
    expect(explained.stdout).not.toContain('google-chrome.pilot');
    expect(explained.stdout).not.toContain('Notepad');

    const unknown = await run(['render', repo, '--ring', 'nope'], {});
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--ring "nope"');

    // An app every ring omits is an app of the baseline: nothing rendered, and why (regression: "not an app").
    const omitted = await repoWith(baseline({ exceptions: '    - { app: VLC media player, action: omit, reason: r, owner: o }' }));
    const none = await run(['render', omitted.repo, '--app', 'VLC media player'], {});
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/--app "VLC media player" renders nothing: omitted by the exception\(s\) at .*baseline\.yaml:\d+:\d+/);
  });

  it("a version policy in a baseline is the Package's (regression: skip and group were refused, and minAge took forms the generated Package then refused)", async () => {
    const policy = baseline({
      apps: ['{ app: Notepad++, version: 8.7.1 }', '{ app: VLC media player, version: 3.0.21, update: { track: 3.0.x } }'],
    }).replace(
      '    state: pending\n',
      '    state: pending\n    update: { track: latest, minAge: 1d12h, skip: [8.7.2], group: utilities }\n',
    );
    const { repo } = await repoWith(policy);
    const valid = await run(['validate', repo], {});
    expect(valid.code, valid.stderr).toBe(0);
    const explained = await run(['render', repo, '--explain', '--app', 'Notepad++'], {});
    expect(explained.code, explained.stderr).toBe(0);
    // The policy reaches the generated Package whole, and --explain names the layer that set it (line 12: defaults).
    for (const field of ['track: latest', 'minAge: 1d12h', 'skip: ["8.7.2"]', 'group: utilities']) {
      expect(explained.stdout).toMatch(new RegExp(`${field.replace(/[[\]"]/g, '\\$&')} {2}# .*baseline\\.yaml:12:\\d+ \\(defaults\\)`));
    }
    const vlc = await run(['render', repo, '--explain', '--app', 'VLC media player'], {});
    expect(vlc.stdout).toMatch(/track: 3\.0\.x {2}# .*baseline\.yaml:15:\d+ \(apps\[1\]\)/);
    expect(vlc.stdout).not.toContain('group: utilities');

    // A minAge the Package refuses is refused at the baseline's own line, as is an unknown field.
    const { repo: bad } = await repoWith(policy.replace('minAge: 1d12h', 'minAge: 1w, bogus: 1'));
    const refused = await run(['validate', bad], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/baseline\.yaml:12:\d+: .*update\.minAge must match/);
    expect(refused.stderr).toMatch(
      /baseline\.yaml:12:\d+: .*unknown field spec\.defaults\.update\.bogus \(allowed: track, skip, minAge, group\)/,
    );
  });

  it("a ring's patch group by name, as design §13 writes it (pilot: Pilot first), is created on that group and plans clean after", async () => {
    const { sim: s, env, stateDir } = await setup();
    const { repo } = await repoWith(
      baseline({ apps: ['{ app: Notepad++, version: 8.7.1 }'] }).replace(`pilot: ${PILOT}`, 'pilot: Pilot first'),
    );
    const applied = await run(['apply', '--auto-approve', repo], env);
    expect(applied.code, applied.stderr).toBe(0);
    const flows = (await s.state()).flows.filter((f) => !f.deleted);
    expect(Object.fromEntries(flows.map((f) => [f.name, f.patchGroupId]))).toEqual({
      'Notepad++ (pilot)': PILOT,
      'Notepad++ (broad)': BROAD,
    });
    expect((await inventory(stateDir)).objects['Flow/standard-apps.notepad.pilot']?.spec).toMatchObject({ patchGroup: PILOT });
    const again = await run(['plan', repo, '--detailed-exitcode'], env);
    expect(again.code, again.stdout).toBe(0);
  });

  it('apply converges a baseline; the plan header summarises it; renaming the baseline is a move with no API write', async () => {
    const { sim: s, env, stateDir } = await setup();
    const exceptions = '    - { app: VLC media player, ring: broad, action: omit, reason: "ticket 4711", owner: jdoe }';
    const { repo, file } = await repoWith(baseline({ overrides: '    - { rings: [broad], state: running }', exceptions }));
    const plan = await run(['plan', repo], env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Baseline standard-apps: 3 apps × 2 rings (1 override, 1 exception) → 5 flows');
    const applied = await run(['apply', '--auto-approve', repo], env);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    const live = await s.state();
    expect(live.flows.map((f) => f.name).sort()).toEqual(
      ['Google Chrome (broad)', 'Google Chrome (pilot)', 'Notepad++ (broad)', 'Notepad++ (pilot)', 'VLC media player (pilot)'].sort(),
    );
    const again = await run(['plan', repo], env);
    expect(again.stdout).toContain('No changes.');

    const writes = (await s.writes()).length;
    await writeFile(file, (await readFile(file, 'utf8')).replace('name: standard-apps', 'name: desktop-apps'));
    const moved = await run(['plan', repo], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain('Flow/desktop-apps.notepad.pilot');
    expect(moved.stdout).toMatch(/moved/);
    expect(moved.stdout).not.toMatch(/will be (created|deleted)/);
    const renamed = await run(['apply', '--auto-approve', repo], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect((await s.writes()).length).toBe(writes);
    const keys = Object.keys((await inventory(stateDir)).objects);
    expect(keys).toContain('Deployment/desktop-apps.google-chrome.broad');
    expect(keys.some((k) => k.includes('standard-apps'))).toBe(false);
    expect((await run(['plan', repo], env)).stdout).toContain('No changes.');
  });

  it('renaming an app entry (its name part) is a move with no API write, as renaming the baseline is', async () => {
    const { sim: s, env, stateDir } = await setup();
    const { repo, file } = await repoWith(baseline());
    expect((await run(['apply', '--auto-approve', repo], env)).code).toBe(0);
    const writes = (await s.writes()).length;
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('{ app: Notepad++, version: 8.7.1 }', '{ app: Notepad++, name: npp, version: 8.7.1 }'),
    );
    const moved = await run(['plan', repo], env);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain('Flow/standard-apps.npp.pilot');
    expect(moved.stdout).toMatch(/moved/);
    expect(moved.stdout).not.toMatch(/will be (created|deleted)/);
    expect((await run(['apply', '--auto-approve', repo], env)).code).toBe(0);
    expect((await s.writes()).length).toBe(writes);
    const keys = Object.keys((await inventory(stateDir)).objects);
    expect(keys).toContain('Deployment/standard-apps.npp.broad');
    expect(keys.some((k) => k.includes('.notepad.'))).toBe(false);
  });

  it('precedence: an app entry beats defaults, an override naming apps and rings beats one naming rings; promotion comes from defaults', async () => {
    const { repo } = await repoWith(
      baseline({
        apps: ['{ app: Notepad++, version: 8.7.1, scope: user }', '{ app: Google Chrome, version: 131.0.6778.86 }'],
        overrides: ['    - { rings: [broad], state: running }', '    - { rings: [broad], apps: [Google Chrome], state: stopped }'].join(
          '\n',
        ),
      }).replace('    state: pending\n', '    state: pending\n    promotion: { soak: 6h, minDevices: 50, maxFailureRate: 15% }\n'),
    );
    const r = await run(['render', repo, '--explain'], {});
    expect(r.code, r.stderr).toBe(0);
    const doc = (key: string): string => r.stdout.split(/^# /m).find((d) => d.startsWith(`${key}:`)) ?? '';
    // The app entry's scope beats the defaults' machine.
    expect(doc('Package/standard-apps.notepad')).toMatch(/scope: user {2}# .*\(apps\[0\]\)/);
    // Both overrides name the broad ring; the one naming the app as well wins for Chrome, the other for Notepad++.
    expect(doc('Deployment/standard-apps.google-chrome.broad')).toMatch(/state: stopped {2}# .*\(overrides\[1\]\)/);
    expect(doc('Deployment/standard-apps.notepad.broad')).toMatch(/state: running {2}# .*\(overrides\[0\]\)/);
    expect(doc('Deployment/standard-apps.notepad.pilot')).toMatch(/state: pending {2}# .*\(defaults\)/);
    // The promotion gate set in defaults reaches every generated deployment.
    expect(doc('Deployment/standard-apps.google-chrome.pilot')).toMatch(/"soak":"6h"/);
    expect(doc('Deployment/standard-apps.notepad.broad')).toMatch(/"minDevices":50/);
  });

  it('a baseline change removing more than maxRemoved flows is refused without --allow-shrink, and nothing is written', async () => {
    const { sim: s, env } = await setup();
    const { repo, file } = await repoWith(baseline({ maxRemoved: 1 }));
    expect((await run(['apply', '--auto-approve', repo], env)).code).toBe(0);
    await writeFile(file, baseline({ maxRemoved: 1, apps: APPS.slice(0, 1) }));
    const writes = (await s.writes()).length;
    const refused = await run(['apply', '--auto-approve', '--prune', repo], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('more than maxRemoved (1)');
    expect((await s.writes()).length).toBe(writes);
    const allowed = await run(['apply', '--auto-approve', '--prune', '--allow-shrink', repo], env);
    expect(allowed.code, allowed.stderr + allowed.stdout).toBe(0);
    const live = await s.state();
    expect(
      live.flows
        .filter((f) => !f.deleted)
        .map((f) => f.name)
        .sort(),
    ).toEqual(['Notepad++ (broad)', 'Notepad++ (pilot)']);
  });

  it('shrink-counted-once: a shrink applied with --allow-shrink (the objects kept, no --prune) is not refused again by later plans; hand-written objects named like the baseline are not its own', async () => {
    // Before: every later plan counted the kept orphans again ("removes 4 flows … more than
    // maxRemoved"), so nothing could be applied without --allow-shrink until they were pruned; and a
    // hand-written Flow `standard-apps.x` in another file counted as the baseline's.
    const { sim: s, env } = await setup();
    const { repo, file } = await repoWith(baseline({ maxRemoved: 1 }));
    expect((await run(['apply', '--auto-approve', repo], env)).code).toBe(0);
    await writeFile(file, baseline({ maxRemoved: 1, apps: APPS.slice(0, 1) }));
    expect((await run(['plan', repo], env)).code).toBe(1);
    const allowed = await run(['apply', '--auto-approve', '--allow-shrink', repo], env);
    expect(allowed.code, allowed.stderr + allowed.stdout).toBe(0);
    // An unrelated edit later: planned and applied without --allow-shrink, the orphans still listed.
    await writeFile(file, baseline({ maxRemoved: 1, apps: ['{ app: Notepad++, version: 8.7.1, promotion: { soak: 1h } }'] }));
    const later = await run(['plan', repo], env);
    expect(later.code, later.stdout + later.stderr).toBe(0);
    expect(later.stdout).toMatch(/requires? pruning|orphan/);
    expect((await run(['apply', '--auto-approve', repo], env)).code).toBe(0);
    // The prune of what the allowed shrink kept is not a new shrink either.
    const writes = (await s.writes()).length;
    const pruned = await run(['apply', '--auto-approve', '--prune', repo], env);
    expect(pruned.code, pruned.stdout + pruned.stderr).toBe(0);
    expect((await s.writes()).length).toBeGreaterThan(writes);
    expect(
      (await s.state()).flows
        .filter((f) => !f.deleted)
        .map((f) => f.name)
        .sort(),
    ).toEqual(['Notepad++ (broad)', 'Notepad++ (pilot)']);

    // Hand-written flows named standard-apps.* in their own file, applied, then removed: not the baseline's shrink.
    const hand = (n: number): string =>
      `apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: standard-apps.legacy-${n}\nspec:\n  app: 7-Zip\n  name: Legacy ${n}\n`;
    await writeFile(join(repo, 'hand.yaml'), [1, 2, 3].map(hand).join('---\n'));
    expect((await run(['apply', '--auto-approve', repo], env)).code).toBe(0);
    await rm(join(repo, 'hand.yaml'));
    const handGone = await run(['plan', repo], env);
    expect(handGone.code, handGone.stdout + handGone.stderr).toBe(0);
  });

  it('an exception ends after its expires date by the service clock: the plan says it expired and the baseline applies again', async () => {
    const { sim: s, env } = await setup();
    const clock = (await s.admin('GET', '/_sim/clock')) as { now: string };
    const day = new Date(Date.parse(clock.now) + 3 * 86_400_000).toISOString().slice(0, 10);
    const exceptions = `    - { app: VLC media player, ring: broad, action: omit, reason: "ticket 4711", owner: jdoe, expires: ${day} }`;
    const { repo } = await repoWith(baseline({ exceptions }));
    const before = await run(['plan', repo], env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/1 exception expiring in [34] days\) → 5 flows/);
    expect(before.stdout).not.toContain('Flow/standard-apps.vlc-media-player.broad');
    await s.advance(6 * 86_400);
    const after = await run(['plan', repo], env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain(`the exception for VLC media player in ring broad (omit, owner jdoe: ticket 4711) expired on ${day}`);
    expect(after.stdout).toContain('(1 expired) → 6 flows');
    expect(after.stdout).toContain('+ Flow/standard-apps.vlc-media-player.broad will be created');
  });

  it('bad input is refused at FILE:LINE:COL and nothing is applied: unknown ring, unknown app, bad date, contradictory overrides, a key written by hand too, an app not in the catalog', async () => {
    const { sim: s, env } = await setup();
    const cases: [string, RegExp][] = [
      [
        baseline({ apps: ['{ app: Notepad++, version: 8.7.1, rings: [pilot, canary] }'] }),
        /baseline\.yaml:13:\d+: .*ring "canary" is not one of/,
      ],
      [
        baseline({ exceptions: '    - { app: Slack, action: omit, reason: r, owner: o }' }),
        /baseline\.yaml:17:\d+: .*app "Slack" is not one of/,
      ],
      [
        baseline({ exceptions: '    - { app: Notepad++, ring: nope, action: omit, reason: r, owner: o }' }),
        /baseline\.yaml:17:\d+: .*ring "nope"/,
      ],
      [
        baseline({ exceptions: '    - { app: Notepad++, action: omit, reason: r, owner: o, expires: 2026-02-30 }' }),
        /baseline\.yaml:17:\d+: .*not a date/,
      ],
      [
        baseline({ exceptions: '    - { app: Notepad++, action: omit, reason: r, owner: o, expires: 31.12.2026 }' }),
        /baseline\.yaml:17:\d+: .*expires/,
      ],
      [baseline({ exceptions: '    - { app: Notepad++, action: omit, owner: o }' }), /baseline\.yaml:17:\d+: .*reason/],
      [
        baseline({ overrides: '    - { rings: [pilot], state: running }\n    - { apps: [Notepad++], state: stopped }' }),
        /baseline\.yaml:17:\d+: .*contradicts overrides\[1\]\.state[\s\S]*baseline\.yaml:18:\d+: .*contradicts overrides\[0\]\.state/,
      ],
    ];
    for (const [text, expected] of cases) {
      const { repo } = await repoWith(text);
      const r = await run(['apply', '--auto-approve', repo], env);
      expect(r.code, text).toBe(1);
      expect(r.stderr, text).toMatch(expected);
    }
    const { repo, file } = await repoWith(baseline());
    await writeFile(
      join(repo, 'flow.yaml'),
      'apiVersion: packsync.dev/v1\nkind: Flow\nmetadata:\n  name: standard-apps.notepad.pilot\nspec:\n  app: Notepad++\n',
    );
    const both = await run(['validate', repo], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(
      /baseline\.yaml:13:\d+: .*generates Flow\/standard-apps\.notepad\.pilot, which \S*flow\.yaml:4:9 also defines/,
    );
    expect(both.stderr).toMatch(/flow\.yaml:4:9: .*Baseline "standard-apps" \(\S*baseline\.yaml:13:\d+\) generates the same/);

    await writeFile(file, baseline({ apps: ['{ app: No Such App, version: "1.0" }'] }));
    await writeFile(join(repo, 'flow.yaml'), '');
    const missing = await run(['apply', '--auto-approve', repo], env);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toMatch(/baseline\.yaml:13:\d+/);
    expect(await s.writes()).toEqual([]);
  });
});
