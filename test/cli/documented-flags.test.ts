/**
 * Every flag the README and docs/*.md present for a command exists in that command's `--help`
 * (issue 14, operator review row 37), and the flags shared by several commands read the same in
 * each. Flags are found as backticked `--flag`: inside a backticked command (`packsync apply …
 * --prune`, `run --listen`), they belong to that command; alone, to the command the same table row
 * or sentence names last before it (`plan`, `packsync run`), or, when it names none, to some
 * command of packsync (or the bench runner, or the git and Node flags the docs quote).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/run-cli.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

const io: CliIo = { stdout: () => undefined, stderr: () => undefined, setExitCode: () => undefined, isTTY: false, env: {}, cwd: REPO_ROOT };
const program = await buildProgram(io, '0.0.0-test');

/** `state list`, `notify test`, … by their full name; each with the long flags its help shows. */
function helpFlags(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (cmd: Command, name: string): void => {
    const help = cmd.helpInformation();
    const options = help.slice(help.indexOf('Options:'));
    const flags = new Set([...options.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]));
    out.set(name, flags);
    for (const sub of cmd.commands) visit(sub, `${name} ${sub.name()}`);
  };
  for (const c of program.commands) visit(c, c.name());
  return out;
}

const HELP = helpFlags();
const flagsIn = (text: string): string[] => [...text.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]);
/** `--version`, `--help`: the program's own. */
const PROGRAM = new Set(flagsIn(program.helpInformation().slice(program.helpInformation().indexOf('Options:'))));
/** docs/performance.md documents `npm run bench -- --scenario NAME [--json] …`: the runner's usage line. */
const BENCH = new Set(
  flagsIn(/usage: npm run bench -- (.*)\\n/.exec(await readFile(join(REPO_ROOT, 'bench', 'run.ts'), 'utf8'))?.[1] ?? ''),
);
/** Other programs' flags the docs quote in prose: git's `--depth` and `--upload-pack`, Node's `--expose-gc` and heap snapshot flag. */
const OTHER_PROGRAMS = new Set([
  '--depth',
  '--upload-pack',
  '--expose-gc',
  '--heapsnapshot-near-heap-limit',
  '--max-old-space-size',
  '--max-semi-space-size',
  '--heap-growing-percent',
  '--optimize-for-size',
  '--no-optimize-for-size',
  '--trace-gc',
  '--v8-pool-size',
  '--concurrent-marking-max-worker-num',
  '--single-threaded',
  '--liftoff-only',
]);
const COMMANDS = [...HELP.keys()].map((k) => k.split(' ')[0]!).filter((v, i, a) => a.indexOf(v) === i);
/** Flags of other programs the docs quote (git, npm, Chromium, Node): not packsync's. */
const FOREIGN =
  /^(?:(?:npx |node \S+ )?(?:git|npm|npx (?!packsync)|node|curl|chromium|docker|kubectl|gpg|ssh-keygen|vitest|openssl|tsc)\b)/;

interface Use {
  file: string;
  line: number;
  flag: string;
  /** The command it must exist on; undefined: any command (the sentence names none before it). */
  command?: string;
  text: string;
}

/** Table rows are units of their own; prose is split into sentences; fenced code into commands. */
function units(text: string): { line: number; text: string; code: boolean }[] {
  const out: { line: number; text: string; code: boolean }[] = [];
  const lines = text.split('\n');
  let para: { line: number; text: string } | null = null;
  let fence = false;
  const flush = (): void => {
    if (!para) return;
    let start = para.line;
    for (const s of para.text.split(/(?<=[.;:!?])\s+(?=[A-Z`(])/)) {
      out.push({ line: start, text: s, code: false });
    }
    start = para.line;
    para = null;
  };
  lines.forEach((l, i) => {
    // A list item starts a unit of its own.
    if (/^\s*(?:[-*]|\d+\.) /.test(l)) flush();
    if (/^\s*```/.test(l)) {
      flush();
      fence = !fence;
      return;
    }
    if (fence) {
      // A continuation line (`   [--watch] …`) belongs to the command line above it.
      const last = out[out.length - 1];
      if (/^\s+\[?--/.test(l) && last?.code) last.text += ` ${l.trim()}`;
      else out.push({ line: i + 1, text: `\`${l.trim()}\``, code: true });
      return;
    }
    if (/^\s*\|/.test(l)) {
      flush();
      out.push({ line: i + 1, text: l, code: false });
      return;
    }
    if (l.trim() === '') return flush();
    if (para) para.text += ` ${l.trim()}`;
    else para = { line: i + 1, text: l.trim() };
  });
  flush();
  return out;
}

function uses(file: string, text: string): Use[] {
  const out: Use[] = [];
  for (const u of units(text)) {
    // The command a bare `--flag` belongs to: the one named last before it in the row or sentence.
    let last: string | undefined;
    for (const m of u.text.matchAll(/`([^`]+)`/g)) {
      // `packsync validate x && packsync apply x --adopt`: one command at a time.
      const parts = m[1]!.replace(/\\\|/g, '|').split(/\s(?:&&|\|\||;|\|)\s/);
      for (const part of parts) {
        let span = part.trim();
        if (FOREIGN.test(span)) continue;
        // "the simulator (`--fleet large`)": the one command name that is no common word, just before.
        if (/\bsimulator\b[^`]{0,40}$/i.test(u.text.slice(0, m.index)) && span.startsWith('--')) span = `packsync simulator ${span}`;
        const cmd =
          /^(?:npx |node \S+ )?packsync (\w[\w-]*)(?: (\w+))?/.exec(span) ??
          /^(\w[\w-]*)(?: (\w+))?(?:\s+(?:\[?--|[A-Z]|\S+ --)|$)/.exec(span);
        const base = cmd && COMMANDS.includes(cmd[1]!) ? cmd[1]! : undefined;
        const flags = [...span.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((f) => f[0]);
        if (base) {
          const full = cmd![2] && HELP.has(`${base} ${cmd![2]}`) ? `${base} ${cmd![2]}` : base;
          last = base;
          for (const flag of flags) out.push({ file, line: u.line, flag, command: full, text: span });
        } else if (/^\[?--[a-z]/.test(span)) {
          for (const flag of flags) out.push({ file, line: u.line, flag, ...(last ? { command: last } : {}), text: u.text.slice(0, 160) });
        }
      }
    }
  }
  return out;
}

async function documented(): Promise<Use[]> {
  const docs = (await readdir(join(REPO_ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const all: Use[] = [];
  for (const file of ['README.md', ...docs]) all.push(...uses(file, await readFile(join(REPO_ROOT, file), 'utf8')));
  return all;
}

describe('documented flags', () => {
  it('reads the flags of the bench runner and of the program itself', () => {
    expect([...BENCH]).toEqual(expect.arrayContaining(['--json', '--size-mib', '--rounds', '--runs', '--flows']));
    expect(PROGRAM.has('--version')).toBe(true);
  });

  it('finds the flags of the README command table (the extraction itself works)', async () => {
    const found = (await documented()).filter((u) => u.file === 'README.md');
    expect(found).toContainEqual(expect.objectContaining({ flag: '--allow-replace', command: 'apply' }));
    expect(found).toContainEqual(expect.objectContaining({ flag: '--output', command: 'validate' }));
    expect(found.length).toBeGreaterThan(20);
  });

  it('every flag in README.md and docs/*.md exists in the --help of its command', async () => {
    const everywhere = new Set([...[...HELP.values()].flatMap((s) => [...s]), ...PROGRAM, ...BENCH, ...OTHER_PROGRAMS]);
    const missing = (await documented())
      .filter((u) => (u.command !== undefined ? !HELP.get(u.command)?.has(u.flag) : !everywhere.has(u.flag)))
      .map((u) => `${u.file}:${u.line}: ${u.flag} (${u.command ?? 'any command'}) in ${u.text}`);
    expect(missing).toEqual([]);
  });

  it('--read-concurrency is on every command that reads the live state (plan, apply, run)', () => {
    for (const c of ['plan', 'apply', 'run']) expect(HELP.get(c), c).toContain('--read-concurrency');
  });

  it('a flag shared by several commands has one help text', () => {
    const texts = new Map<string, Map<string, string>>();
    for (const c of program.commands) {
      for (const o of c.options) {
        const byText = texts.get(o.long ?? o.flags) ?? new Map<string, string>();
        texts.set(o.long ?? o.flags, byText);
        byText.set(o.description, c.name());
      }
    }
    for (const flag of ['--allow-replace', '--prune', '--adopt', '--drift', '--read-concurrency']) {
      expect([...texts.get(flag)!.keys()], flag).toHaveLength(1);
    }
  });

  it('simulator --api-key shows its real default', () => {
    const help = program.commands
      .find((c) => c.name() === 'simulator')!
      .helpInformation()
      .replace(/\s+/g, ' ');
    expect(help).toMatch(/--api-key <key> +an account key \(repeat for several isolated accounts\) \(default: sim-key\)/);
    expect(help).not.toMatch(/default: \[\]/);
  });
});
