/**
 * Requests for the holder of a state's lock. `promote` and `resume` edit the state, and the state has
 * one writer (docs/reconcile.md): while an apply or the agent holds the lock, the command queues its request
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
  /** `promote --ignore-windows`: who breaks glass (docs/policy.md); the reason is `reason`. */
  ignoreWindowsActor?: string;
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

/**
 * Where requests wait: a directory (this file) or blobs (`azblob-requests.ts`), with the same
 * contract: exactly one of a pass's `claim` and a command's `withdraw` wins.
 */
export interface RequestQueue {
  /** How often a waiting command looks for its outcome, and the agent for new requests (ms). */
  readonly pollMs: { outcome: number; pending: number };
  put(r: QueuedRequest): Promise<void>;
  /**
   * Ids of requests to carry out, oldest first (ids start with the time they were made): queued ones,
   * and ones a pass claimed but never finished (its process died; only the lock's holder calls this,
   * so a claimed request seen here has no one working on it).
   */
  pending(): Promise<string[]>;
  /**
   * Claims a request for this pass (or takes back one a dead holder claimed); null when its command
   * withdrew it first. The pass that carries it out must tell a request already done by its id.
   */
  claim(id: string): Promise<QueuedRequest | null>;
  finish(id: string, outcome: RequestOutcome): Promise<void>;
  /** The outcome once the holder carried the request out (and removes it), else null. */
  outcome(id: string): Promise<RequestOutcome | null>;
  /** Takes back a request no pass claimed yet: true when withdrawn, false when a pass has it. */
  withdraw(id: string): Promise<boolean>;
}

/** A claimed request's text; one that does not parse is answered as unreadable, not carried out. */
export async function parseClaimed(q: RequestQueue, id: string, text: string): Promise<QueuedRequest | null> {
  try {
    return JSON.parse(text) as QueuedRequest;
  } catch {
    await q.finish(id, { ok: false, code: 'USAGE', lines: ['the queued request could not be read'] });
    return null;
  }
}

export class DirectoryRequestQueue implements RequestQueue {
  readonly pollMs = { outcome: 200, pending: 1000 };
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'requests');
  }

  async put(r: QueuedRequest): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeAtomic(join(this.dir, `${r.id}.json`), `${JSON.stringify(r)}\n`);
  }

  async pending(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const ids = names
      .filter((n) => !n.includes('.tmp-') && !n.endsWith('.result.json') && (n.endsWith('.json') || n.endsWith('.taken')))
      .map((n) => n.slice(0, n.lastIndexOf('.')));
    return [...new Set(ids)].sort();
  }

  async claim(id: string): Promise<QueuedRequest | null> {
    const taken = join(this.dir, `${id}.taken`);
    await rename(join(this.dir, `${id}.json`), taken).catch(() => undefined);
    let text: string;
    try {
      text = await readFile(taken, 'utf8');
    } catch {
      return null;
    }
    return parseClaimed(this, id, text);
  }

  async finish(id: string, outcome: RequestOutcome): Promise<void> {
    await writeAtomic(join(this.dir, `${id}.result.json`), `${JSON.stringify(outcome)}\n`);
    await unlink(join(this.dir, `${id}.taken`)).catch(() => undefined);
  }

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

  // Unlinking the queued file races the claim's rename: only one of them finds it.
  async withdraw(id: string): Promise<boolean> {
    try {
      await unlink(join(this.dir, `${id}.json`));
      return true;
    } catch {
      return false;
    }
  }
}
