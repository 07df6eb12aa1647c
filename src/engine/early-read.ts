/**
 * The live state's read, started with the desired set a load hands over before it returns
 * (`LoadOptions.onDesired`): a cold load's writes (parse cache, record, desired snapshot; ~0.4 s
 * at fleet scale) then overlap the catalog reads a converge waits on (docs/architecture.md, "The
 * engine"). A pass takes it up only for that very desired set, and stops it when it will not use
 * it: its calls waiting for a slot are never sent, and its failure is never unhandled.
 */
import { setMaxListeners } from 'node:events';
import type { Snapshot } from '../live/snapshot.js';
import type { DesiredModel } from '../manifests/model.js';

export class EarlyRead {
  private desired: DesiredModel | undefined;
  private read: Promise<Snapshot> | undefined;
  private readonly halt = new AbortController();

  /** Starts `read` once, for `desired`, under `outer` (the pass's signal) and this read's own stop. */
  start(desired: DesiredModel, read: (signal: AbortSignal) => Promise<Snapshot>, outer?: AbortSignal): void {
    if (this.read || this.halt.signal.aborted) return;
    const signal = outer ? AbortSignal.any([outer, this.halt.signal]) : this.halt.signal;
    // Every call of the read listens to it (thousands at fleet scale), as in startInventoryReads.
    setMaxListeners(0, signal);
    this.desired = desired;
    this.read = read(signal);
    this.read.catch(() => undefined);
  }

  /** The read, when it was started for `desired` and not stopped; else undefined (read afresh). */
  of(desired: DesiredModel): Promise<Snapshot> | undefined {
    return this.desired === desired && !this.halt.signal.aborted ? this.read : undefined;
  }

  /** No further call of it starts; the pass reads afresh or not at all. */
  stop(): void {
    this.halt.abort();
  }
}
