/**
 * The state in an Azure Blob Storage container, in the directory format: `PREFIX/inventory.json`
 * (a block blob, replaced whole at compaction, conditioned on the ETag we last saw) and
 * `PREFIX/journal.jsonl` (an append blob: one Append Block per group commit, durable when
 * acknowledged, and atomic, so a remote journal cannot be torn).
 *
 * The lock is a 60 s lease on the journal blob itself, renewed every 20 s while the process runs.
 * Leasing the blob that is written (rather than a separate lock blob) makes a lost lease stop writes
 * at once: every append carries the lease id, and the service refuses it when the lease was broken
 * or taken by another writer. Appends also carry the expected journal size (`appendPosition`), so
 * even a writer whose lease silently expired cannot interleave with the next one. The holder
 * (pid, host, since) is kept in the journal blob's metadata for the "locked by" message.
 *
 * Error messages carry the operation, status and service error code only: the SDK's own messages
 * may include request URLs, and a SAS token in a connection string travels in them.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppendBlobClient, BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import type { BackendStats, StateBackend } from './backend.js';
import { newStats } from './backend.js';
import { holderText, pidAlive } from './holder.js';
import type { Holder } from './holder.js';
import { onProcessEnd } from './release-on-exit.js';
import { call } from './azblob-call.js';
import { StateError } from './state-errors.js';

export const LEASE_SECONDS = 60;
const RENEW_MS = 20_000;
/** Append Block takes at most 4 MiB per call. */
const MAX_BLOCK = 4 * 1024 * 1024;
const LEASE_CODES = new Set([
  'LeaseLost',
  'LeaseIdMismatchWithBlobOperation',
  'LeaseNotPresentWithBlobOperation',
  'LeaseIdMissing',
  'LeaseIsBrokenAndCannotBeRenewed',
  'LeaseIdMismatchWithLeaseOperation',
  'LeaseNotPresentWithLeaseOperation',
  'LeaseIsBreakingAndCannotBeAcquired',
  'AppendPositionConditionNotMet',
  'ConditionNotMet',
]);

export class AzureBlobBackend implements StateBackend {
  readonly description: string;
  readonly names: { snapshot: string; journal: string };
  readonly stats: BackendStats = newStats();
  private readonly snapshotBlob: BlockBlobClient;
  private readonly journalBlob: AppendBlobClient;
  private lease: BlobLeaseClient | null = null;
  private holder: Holder | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private lost: StateError | null = null;
  /** Set by read(): the container itself does not exist (a new state, or a mistyped --state-url). */
  containerMissing = false;
  /** ETag of the snapshot as last read or written: a snapshot write expects it unchanged. */
  private snapshotEtag: string | undefined;
  /** Committed blocks of the journal blob, as read and appended since. */
  private journalBlocks = 0;
  /** Blocks after which the journal is folded whatever its size (the service takes 50,000 per append blob). */
  foldBlocks = 40_000;
  private offProcessEnd: (() => void) | null = null;

  constructor(
    private readonly container: ContainerClient,
    prefix: string,
    readonly url: string,
  ) {
    this.description = `remote state ${url}`;
    const at = (name: string): string => (prefix ? `${prefix}/${name}` : name);
    this.names = { snapshot: `${url}/inventory.json`, journal: `${url}/journal.jsonl` };
    this.snapshotBlob = container.getBlockBlobClient(at('inventory.json'));
    this.journalBlob = container.getAppendBlobClient(at('journal.jsonl'));
  }

  /** One writer per state: takes the journal's lease, or names who holds it. */
  async lock(warn: (message: string) => void, create = true): Promise<void> {
    if (this.lease) return;
    if (!create) {
      // Only apply and run make a new state: a state edit never creates a container a typo names.
      if (!(await call('find the container', () => this.container.exists()))) throw this.missing();
    } else {
      const made = await call('create the container', () => this.container.createIfNotExists()).catch((e: unknown) => {
        // A SAS limited to blobs may not create containers: the container then has to exist already.
        if ((e as StateError & { status?: number }).status !== 403) throw e;
        return undefined;
      });
      // Said, so a mistyped --state-url shows in the log of the apply that made a new state.
      if (made?.succeeded) warn(`created the container "${this.container.containerName}" for a new state at ${this.url}`);
    }
    await call('create the journal', () => this.journalBlob.createIfNotExists());
    const lease = this.journalBlob.getBlobLeaseClient(randomUUID());
    try {
      await call('acquire the lease', () => lease.acquireLease(LEASE_SECONDS));
    } catch (e) {
      if ((e as { azureCode?: string }).azureCode !== 'LeaseAlreadyPresent') throw e;
      const props = await call('read the lock holder', () => this.journalBlob.getProperties());
      const h = props.metadata ?? {};
      const holder: Holder | null = h.packsync_pid
        ? { pid: Number(h.packsync_pid), host: h.packsync_host ?? '?', since: h.packsync_since ?? '?' }
        : null;
      if (!holder || holder.host !== hostname() || pidAlive(holder.pid)) {
        throw new StateError(
          'STATE_LOCKED',
          `${this.url} is locked by ${holder ? holderText(holder) : 'another process (no holder recorded)'} (a lease on its journal blob); wait for it to finish, or break the lease if that process is gone for good`,
        );
      }
      await call('break the dead holder’s lease', () => this.journalBlob.getBlobLeaseClient().breakLease(0));
      await call('acquire the lease', () => lease.acquireLease(LEASE_SECONDS));
      warn(`taking over the lock of ${this.url} from ${holderText(holder)}, which is no longer running`);
    }
    this.lease = lease;
    this.lost = null;
    this.holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    await this.guard('record the lock holder', () =>
      this.journalBlob.setMetadata(this.metadata(), { conditions: { leaseId: lease.leaseId } }),
    );
    this.renewTimer = setInterval(() => void this.renew(), RENEW_MS);
    this.renewTimer.unref();
    this.offProcessEnd = onProcessEnd(() => this.unlock());
  }

  /** The error of a command that needs the state to exist (state edits, export) when its container does not. */
  missing(): StateError {
    const name = this.container.containerName;
    return new StateError(
      'STATE_REMOTE_ERROR',
      `${this.url}: the container "${name}" does not exist in the storage account, so there is no state there; check --state-url (a new state is made by the first apply, which creates the container)`,
    );
  }

  async unlock(): Promise<void> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    this.offProcessEnd?.();
    this.offProcessEnd = null;
    const lease = this.lease;
    this.lease = null;
    if (lease && !this.lost) await lease.releaseLease().catch(() => undefined);
  }

  async read(): Promise<{ snapshot: string | null; journal: string | null }> {
    // Journal first, then snapshot (see DirectoryBackend.read).
    this.containerMissing = false;
    const journal = await downloadText(this.journalBlob, () => (this.containerMissing = true));
    this.journalBlocks = journal?.blocks ?? 0;
    const snapshot = await downloadText(this.snapshotBlob, () => (this.containerMissing = true));
    this.snapshotEtag = snapshot?.etag;
    return { snapshot: snapshot?.text ?? null, journal: journal?.text ?? null };
  }

  async append(text: string, _sync: boolean, expectedBytes: number): Promise<void> {
    const leaseId = this.leaseId();
    // A sync alone has nothing to do here: every acknowledged Append Block is already durable.
    if (text.length === 0) return;
    let at = expectedBytes;
    for (const chunk of chunks(text)) {
      const size = Buffer.byteLength(chunk);
      try {
        await call('append to the journal', () =>
          this.journalBlob.appendBlock(chunk, size, { conditions: { leaseId, appendPosition: at } }),
        );
      } catch (e) {
        // A retry of an append whose first attempt landed: the blob already ends at our new size.
        if ((e as { azureCode?: string }).azureCode !== 'AppendPositionConditionNotMet' || !(await this.endsAt(at + size)))
          throw this.classify(e);
      }
      at += size;
      this.journalBlocks++;
      this.stats.appends++;
      this.stats.bytesAppended += size;
    }
    this.stats.syncs++;
  }

  async writeSnapshot(parts: Iterable<string>): Promise<void> {
    this.leaseId();
    // One Put Blob: a conditional write of the whole snapshot (staged blocks would need a commit step of their own).
    const text = [...parts].join('');
    const conditions = this.snapshotEtag ? { ifMatch: this.snapshotEtag } : { ifNoneMatch: '*' };
    const r = await this.guard('write the snapshot', () =>
      this.snapshotBlob.upload(text, Buffer.byteLength(text), { conditions, blobHTTPHeaders: { blobContentType: 'application/json' } }),
    );
    this.snapshotEtag = r.etag;
    this.stats.snapshots++;
  }

  async resetJournal(): Promise<void> {
    const leaseId = this.leaseId();
    // Put Blob over a leased blob keeps the lease when the lease id is given.
    await this.guard('empty the journal', () => this.journalBlob.create({ conditions: { leaseId }, metadata: this.metadata() }));
    this.journalBlocks = 0;
  }

  /** An append blob takes 50,000 blocks; the store folds well before (one pass may append thousands). */
  journalNearlyFull(): boolean {
    return this.journalBlocks >= this.foldBlocks;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private leaseId(): string {
    if (this.lost) throw this.lost;
    if (!this.lease) throw new StateError('STATE_NOT_LOCKED', `${this.url} is written only under its lease (take the lock first)`);
    return this.lease.leaseId;
  }

  private metadata(): Record<string, string> {
    const h = this.holder!;
    return { packsync_pid: String(h.pid), packsync_host: h.host, packsync_since: h.since };
  }

  private async renew(): Promise<void> {
    const lease = this.lease;
    if (!lease || this.lost) return;
    try {
      await call('renew the lease', () => lease.renewLease());
    } catch (e) {
      this.lost = this.classify(e, true);
      if (this.renewTimer) clearInterval(this.renewTimer);
    }
  }

  private async guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await call(what, fn);
    } catch (e) {
      throw this.classify(e);
    }
  }

  /** Lease and precondition failures mean another writer may own the state now: stop for good. */
  private classify(e: unknown, renewing = false): StateError {
    const code = (e as { azureCode?: string }).azureCode;
    if (renewing || (code && LEASE_CODES.has(code))) {
      this.lost ??= new StateError(
        'STATE_LEASE_LOST',
        `lost the lease on ${this.url} (${code ?? 'renewal failed'}): another writer may own the state now, so packsync stops writing it; run again once the other writer is done`,
        { cause: e },
      );
      return this.lost;
    }
    return e instanceof StateError ? e : new StateError('STATE_REMOTE_ERROR', String(e));
  }

  private async endsAt(size: number): Promise<boolean> {
    const p = await this.journalBlob.getProperties().catch(() => null);
    return p?.contentLength === size;
  }
}

/** Splits at line ends into pieces Append Block accepts. */
function chunks(text: string): string[] {
  if (Buffer.byteLength(text) <= MAX_BLOCK) return [text];
  const out: string[] = [];
  let cur = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (cur && Buffer.byteLength(cur) + Buffer.byteLength(line) > MAX_BLOCK) {
      out.push(cur);
      cur = '';
    }
    cur += line;
  }
  if (cur) out.push(cur);
  return out;
}

async function downloadText(
  blob: BlockBlobClient | AppendBlobClient,
  onContainerMissing: () => void,
): Promise<{ text: string; etag: string | undefined; blocks: number | undefined } | null> {
  try {
    // One request for body and ETag, so the ETag is the one of the text we read.
    const r = await call('read the state', () => blob.download());
    const parts: Buffer[] = [];
    for await (const part of r.readableStreamBody ?? []) parts.push(Buffer.from(part as Buffer));
    return { text: Buffer.concat(parts).toString('utf8'), etag: r.etag, blocks: r.blobCommittedBlockCount };
  } catch (e) {
    if ((e as { status?: number }).status !== 404) throw e;
    if ((e as { azureCode?: string }).azureCode === 'ContainerNotFound') onContainerMissing();
    return null;
  }
}
