/**
 * Slices of a long synchronous loop that runs while calls are in flight (a pass loads its
 * manifests while its first reads wait on the service; docs/architecture.md, "The engine"): after
 * `sliceMs` of work, `due()` returns a promise for one turn of the event loop, in which the answers
 * that arrived meanwhile are handled and the next calls start; otherwise it returns undefined and
 * the loop stays synchronous (no promise per item). Without this, every answer waited behind the
 * whole load, and 16 calls in flight stood idle for as long as each synchronous stretch took.
 */
export class Turns {
  private since = performance.now();

  constructor(private readonly sliceMs = 1) {}

  due(): Promise<void> | undefined {
    if (performance.now() - this.since < this.sliceMs) return undefined;
    return new Promise((resolve) => {
      setImmediate(() => {
        this.since = performance.now();
        resolve();
      });
    });
  }
}
