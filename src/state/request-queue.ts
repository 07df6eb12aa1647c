/**
 * Requests for the holder of a state's lock. `promote` and `resume` edit the state, and the state has
 * one writer (design §4): while an apply or the agent holds the lock, the command queues its request
 * here instead of writing; the holder's next locked pass carries it out (`engine/gate-requests.ts`),
 * records the outcome, and the waiting command prints it. Files in `<state-dir>/requests/`:
 * `ID.json` (queued), renamed to `ID.taken` by the one pass that claims it (a rename is atomic, so a
 * command that withdraws a request it gave up on and a pass that claims it cannot both win), then
 * `ID.result.json` (the outcome, read and removed by the command).
 */
import { mkdir, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomic } from './durable-file.js';

export interface QueuedRequest {
  id: string;
  command: 'promote' | 'resume';
  key: string;
  reason?: string;
  /** When and by whom it was queued (for messages). */
  at: string;
  pid: number;
}

export interface RequestOutcome {
  ok: boolean;
  /** Error code when refused or failed. */
  code?: string;
  lines: string[];
}

export class RequestQueue {
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'requests');
  }

  async put(r: QueuedRequest): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeAtomic(join(this.dir, `${r.id}.json`), `${JSON.stringify(r)}\n`);
  }

  /** Ids of queued requests, oldest first (ids start with the time they were made). */
  async pending(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names
      .filter((n) => n.endsWith('.json') && !n.endsWith('.result.json') && !n.includes('.tmp-'))
      .map((n) => n.slice(0, -'.json'.length))
      .sort();
  }

  /** Claims a request for this pass; null when another pass or its command took it first. */
  async claim(id: string): Promise<QueuedRequest | null> {
    const taken = join(this.dir, `${id}.taken`);
    try {
      await rename(join(this.dir, `${id}.json`), taken);
    } catch {
      return null;
    }
    try {
      return JSON.parse(await readFile(taken, 'utf8')) as QueuedRequest;
    } catch {
      await this.finish(id, { ok: false, code: 'USAGE', lines: ['the queued request could not be read'] });
      return null;
    }
  }

  async finish(id: string, outcome: RequestOutcome): Promise<void> {
    await writeAtomic(join(this.dir, `${id}.result.json`), `${JSON.stringify(outcome)}\n`);
    await unlink(join(this.dir, `${id}.taken`)).catch(() => undefined);
  }

  /** The outcome once the holder carried the request out (and removes it), else null. */
  async outcome(id: string): Promise<RequestOutcome | null> {
    const file = join(this.dir, `${id}.result.json`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return null;
    }
    await unlink(file).catch(() => undefined);
    return JSON.parse(text) as RequestOutcome;
  }

  /** Takes back a request no pass claimed yet: true when withdrawn, false when a pass has it. */
  async withdraw(id: string): Promise<boolean> {
    try {
      await unlink(join(this.dir, `${id}.json`));
      return true;
    } catch {
      return false;
    }
  }
}
