/**
 * The request queue of a remote state (`request-queue.ts` has the contract), as blobs next to the
 * state: `PREFIX/requests/ID.json` (queued), `ID.claim` (who won it: `taken` by a pass or `withdrawn`
 * by its command) and `ID.result.json` (the outcome, read and deleted by the command).
 *
 * Blob storage has no rename, so the one-winner rule of the directory queue comes from a conditional
 * create instead: the claim blob is written with `If-None-Match: *`, which the service accepts once.
 * Only the lock's holder claims, so a claim found `taken` is one its dead predecessor left: taken back.
 *
 * Polling is slower than for a directory (every list and read is a billed storage operation): the
 * agent looks for new requests every 5 s, a waiting command for its outcome every second.
 */
import type { ContainerClient } from '@azure/storage-blob';
import { call } from './azblob-call.js';
import type { QueuedRequest, RequestOutcome, RequestQueue } from './request-queue.js';
import { parseClaimed } from './request-queue.js';

type Claim = 'taken' | 'withdrawn';

export class BlobRequestQueue implements RequestQueue {
  readonly pollMs = { outcome: 1000, pending: 5000 };
  private readonly prefix: string;

  constructor(
    private readonly container: () => Promise<ContainerClient>,
    statePrefix: string,
  ) {
    this.prefix = statePrefix ? `${statePrefix}/requests/` : 'requests/';
  }

  async put(r: QueuedRequest): Promise<void> {
    await this.write(`${r.id}.json`, `${JSON.stringify(r)}\n`, false);
  }

  async pending(): Promise<string[]> {
    const c = await this.container();
    const ids: string[] = [];
    await call('list the queued requests', async () => {
      for await (const b of c.listBlobsFlat({ prefix: this.prefix })) {
        const name = b.name.slice(this.prefix.length);
        // A queued request keeps its .json until it is finished or withdrawn.
        if (name.endsWith('.json') && !name.endsWith('.result.json')) ids.push(name.slice(0, -'.json'.length));
      }
    });
    return ids.sort();
  }

  async claim(id: string): Promise<QueuedRequest | null> {
    const claim = await this.decide(id, 'taken');
    if (claim === 'withdrawn') {
      // Its command gave up; if it died before deleting the request, no one else would.
      await this.remove(`${id}.json`);
      await this.remove(`${id}.claim`);
    }
    if (claim !== 'taken') return null;
    const text = await this.read(`${id}.json`);
    if (text === null) {
      // Withdrawn and deleted between our listing and our claim: nothing to do, leave nothing behind.
      await this.remove(`${id}.claim`);
      return null;
    }
    return parseClaimed(this, id, text);
  }

  async finish(id: string, outcome: RequestOutcome): Promise<void> {
    await this.write(`${id}.result.json`, `${JSON.stringify(outcome)}\n`, false);
    await this.remove(`${id}.json`);
    await this.remove(`${id}.claim`);
  }

  async outcome(id: string): Promise<RequestOutcome | null> {
    const text = await this.read(`${id}.result.json`);
    if (text === null) return null;
    await this.remove(`${id}.result.json`);
    return JSON.parse(text) as RequestOutcome;
  }

  async withdraw(id: string): Promise<boolean> {
    if ((await this.decide(id, 'withdrawn')) !== 'withdrawn') return false;
    await this.remove(`${id}.json`);
    await this.remove(`${id}.claim`);
    return true;
  }

  /** Writes the claim blob if no one did; returns what the claim says now (ours, or the winner's). */
  private async decide(id: string, want: Claim): Promise<Claim | null> {
    if (await this.write(`${id}.claim`, want, true)) return want;
    const text = await this.read(`${id}.claim`);
    // Deleted since (finished or withdrawn just now): the request is gone.
    return text === 'taken' || text === 'withdrawn' ? text : null;
  }

  /** Uploads a blob; with `onlyIfAbsent`, false when it exists already. */
  private async write(name: string, text: string, onlyIfAbsent: boolean): Promise<boolean> {
    const blob = (await this.container()).getBlockBlobClient(this.prefix + name);
    try {
      await call('queue a request', () =>
        blob.upload(text, Buffer.byteLength(text), onlyIfAbsent ? { conditions: { ifNoneMatch: '*' } } : {}),
      );
      return true;
    } catch (e) {
      const status = (e as { status?: number }).status;
      if (onlyIfAbsent && (status === 409 || status === 412)) return false;
      throw e;
    }
  }

  private async read(name: string): Promise<string | null> {
    const blob = (await this.container()).getBlobClient(this.prefix + name);
    try {
      return (await call('read a queued request', () => blob.downloadToBuffer())).toString('utf8');
    } catch (e) {
      if ((e as { status?: number }).status === 404) return null;
      throw e;
    }
  }

  private async remove(name: string): Promise<void> {
    const blob = (await this.container()).getBlobClient(this.prefix + name);
    await call('remove a queued request', () => blob.deleteIfExists());
  }
}
