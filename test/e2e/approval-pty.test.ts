/**
 * Approval on a real pseudo-terminal (docs/reconcile.md): the built CLI runs under util-linux `script`,
 * so its standard input and output are a terminal exactly as for a person at a shell. The plan comes
 * before the prompt, only "yes" applies, deletes and replacements are listed again in the prompt,
 * and a saved plan needs no prompt. Colour follows the terminal unless `--no-color`, `NO_COLOR` or
 * `TERM=dumb` turns it off. Outcomes are read from the simulator's journal and the exit code.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deploymentsYaml, flowsYaml, writeRepo } from '../support/manifests.js';
import { tempDir } from '../support/repo.js';
import { countBy, startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';
import { CLI_BIN, spawnCli } from '../support/spawn-cli.js';

const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const PROMPT = 'Enter a value:';
const ESC = '\x1b[';

let sim: TestSim;
let env: Record<string, string>;

beforeEach(async () => {
  sim = await startTestSimulator();
  env = {
    PACKSYNC_API_URL: sim.url,
    PACKSYNC_API_KEY: sim.key,
    PACKSYNC_STATE_DIR: await tempDir('packsync-state-'),
    TERM: 'xterm-256color',
  };
});
afterEach(async () => {
  await sim.close();
});

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

interface PtyRun {
  code: number | null;
  /** Everything the terminal showed, with carriage returns removed. */
  screen: string;
}

/**
 * Runs the CLI on a pseudo-terminal; when the approval prompt shows, types `answer` and Enter.
 * Without an answer nothing is typed and standard input stays open, as for a person who waits.
 */
function onTerminal(args: string[], e: Record<string, string>, answer?: string): Promise<PtyRun> {
  const cmd = [process.execPath, CLI_BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', ...e },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  let answered = false;
  const onData = (d: Buffer): void => {
    screen += d.toString();
    if (answer !== undefined && !answered && screen.includes(PROMPT)) {
      answered = true;
      // Control characters (Ctrl-C, Ctrl-D) are keys of their own; anything else is a line.
      child.stdin.write(/^[\x00-\x1f]$/.test(answer) ? answer : `${answer}\r`);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen: screen.replace(/\r/g, '') });
    });
  });
}

async function writeCount(): Promise<number> {
  return (await sim.journal(true)).length;
}

describe.skipIf(!HAS_SCRIPT)('apply on a terminal', () => {
  it('prints the plan before the prompt, and "yes" applies it', async () => {
    const repo = await writeRepo();
    const r = await onTerminal(['apply', repo], env, 'yes');
    expect(r.code, r.screen).toBe(0);
    const plan = r.screen.indexOf('Plan: 6 to create');
    const question = r.screen.indexOf('Do you want to perform these actions?');
    expect(plan).toBeGreaterThanOrEqual(0);
    expect(question).toBeGreaterThan(plan);
    expect(r.screen.indexOf(PROMPT)).toBeGreaterThan(question);
    expect(countBy(await sim.writes())).toEqual({
      'POST /v1/app/import/{id}': 2,
      'POST /v1/flow/create': 2,
      'POST /v1/flow/{id}/add-deployment': 2,
    });
  });

  it('"no" exits 1 and writes nothing', async () => {
    const r = await onTerminal(['apply', await writeRepo()], env, 'no');
    expect(r.code).toBe(1);
    expect(r.screen).toMatch(/Apply cancelled\. Nothing was changed\./);
    expect(await writeCount()).toBe(0);
  });

  it('anything but "yes" ("y") is a refusal', async () => {
    const r = await onTerminal(['apply', await writeRepo()], env, 'y');
    expect(r.code).toBe(1);
    expect(await writeCount()).toBe(0);
  });

  it('Ctrl-C at the prompt exits 130 and writes nothing; Ctrl-D (no answer) exits 1', async () => {
    const repo = await writeRepo();
    const interrupted = await onTerminal(['apply', repo], env, '\x03');
    expect(interrupted.code).toBe(130);
    expect(interrupted.screen).toMatch(/Interrupted at the approval prompt\. Nothing was changed\./);
    const ended = await onTerminal(['apply', repo], env, '\x04');
    expect(ended.code).toBe(1);
    expect(ended.screen).toMatch(/Apply cancelled\. Nothing was changed\./);
    expect(await writeCount()).toBe(0);
  });

  it('lists deletes and replacements again in the prompt, each delete with its live status and wave (regression: bare keys)', async () => {
    const repo = await writeRepo();
    const first = await onTerminal(['apply', repo, '--auto-approve'], env);
    expect(first.code, first.screen).toBe(0);
    expect(first.screen).not.toContain(PROMPT);
    const before = await writeCount();
    // Drop pwsh (its deployment and flow are pruned) and change the 7-Zip flow (replaced).
    await writeFile(join(repo, 'deployments.yaml'), deploymentsYaml().split('---')[0]!);
    await writeFile(
      join(repo, 'flows.yaml'),
      flowsYaml().split('---')[0]!.replace('flags: [startNewVersionsAutomatically, radarTracking]', 'flags: [radarTracking]'),
    );
    const r = await onTerminal(['apply', repo, '--prune', '--allow-replace'], env, 'no');
    expect(r.code).toBe(1);
    const prompt = r.screen.slice(r.screen.indexOf('Do you want to perform these actions?'));
    expect(prompt).toMatch(/These objects will be deleted or replaced:/);
    expect(prompt).toMatch(/- Deployment\/pwsh-7-4-6 \(live: \w+, wave \d+\/\d+; its manifest left git\)/);
    expect(prompt).toMatch(/- Flow\/pwsh/);
    expect(prompt).toMatch(/± Flow\/seven-zip/);
    expect(await writeCount()).toBe(before);
  });

  it('applies a saved plan without asking', async () => {
    const repo = await writeRepo();
    const file = join(await tempDir('packsync-plan-'), 'plan.json');
    const saved = await spawnCli(['plan', repo, '--out', file], env).done;
    expect(saved.code, saved.stderr).toBe(0);
    const r = await onTerminal(['apply', file], env);
    expect(r.code, r.screen).toBe(0);
    expect(r.screen).not.toContain(PROMPT);
    expect(countBy(await sim.writes())['POST /v1/flow/create']).toBe(2);
  });
});

describe.skipIf(!HAS_SCRIPT)('colour on a terminal', () => {
  it('is on by default, and off with --no-color, NO_COLOR or TERM=dumb', async () => {
    const repo = await writeRepo();
    const plain = await onTerminal(['plan', repo], env);
    expect(plain.code).toBe(0);
    expect(plain.screen).toContain(`${ESC}32m+ Package/seven-zip-24-08`);
    const cases: [string, string[], Record<string, string>][] = [
      ['--no-color', ['plan', repo, '--no-color'], env],
      ['NO_COLOR=1', ['plan', repo], { ...env, NO_COLOR: '1' }],
      ['TERM=dumb', ['plan', repo], { ...env, TERM: 'dumb' }],
    ];
    for (const [name, args, e] of cases) {
      const r = await onTerminal(args, e);
      expect(r.code, name).toBe(0);
      expect(r.screen, name).toContain('+ Package/seven-zip-24-08 will be created');
      expect(r.screen, name).not.toContain(ESC);
    }
    // The prompt path reads the same switch: apply --no-color shows a plan without colour.
    const apply = await onTerminal(['apply', repo, '--no-color'], env, 'no');
    expect(apply.code).toBe(1);
    expect(apply.screen.slice(0, apply.screen.indexOf(PROMPT))).not.toMatch(/\x1b\[3\dm/);
  });

  // Readline's terminal mode redrew the prompt with cursor codes (ESC[1G ESC[0J … ESC[18G) even
  // when colour was off; a dumb terminal or a session log showed them as garbage.
  it('the approval prompt writes no control codes with --no-color, NO_COLOR or TERM=dumb, and still answers', async () => {
    const repo = await writeRepo();
    const cases: [string, string[], Record<string, string>][] = [
      ['--no-color', ['--no-color'], env],
      ['NO_COLOR=1', [], { ...env, NO_COLOR: '1' }],
      ['TERM=dumb', [], { ...env, TERM: 'dumb' }],
    ];
    for (const [name, flags, e] of cases) {
      const r = await onTerminal(['apply', repo, ...flags], e, 'no');
      expect(r.code, name).toBe(1);
      expect(r.screen, name).toContain(PROMPT);
      expect(r.screen, name).not.toContain('\x1b');
    }
    const interrupted = await onTerminal(['apply', repo, '--no-color'], env, '\x03');
    expect(interrupted.code).toBe(130);
    expect(interrupted.screen).toMatch(/Interrupted at the approval prompt\. Nothing was changed\./);
    expect(interrupted.screen).not.toMatch(/the next apply resumes it/);
    const ended = await onTerminal(['apply', repo, '--no-color'], env, '\x04');
    expect(ended.code).toBe(1);
    expect(await writeCount()).toBe(0);
    const yes = await onTerminal(['apply', repo], { ...env, TERM: 'dumb' }, 'yes');
    expect(yes.code, yes.screen).toBe(0);
    expect(yes.screen).not.toContain('\x1b');
    expect(countBy(await sim.writes())['POST /v1/flow/create']).toBe(2);
  });
});
