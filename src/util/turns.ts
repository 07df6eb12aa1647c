/**
 * Slices of a long synchronous loop that runs while calls are in flight (a pass loads its
 * manifests while its first reads wait on the service; docs/architecture.md, "The engine"):
 * `if (turns.due()) await turns.next();` gives way for one turn of the event loop once `sliceMs` of
 * work passed, in which the answers that arrived meanwhile are handled and the next calls start;
 * otherwise the loop stays synchronous (no await, so no microtask per item). Without this, every
 * answer waited behind the whole load, and 16 calls in flight stood idle for as long as each
 * synchronous stretch took.
 */
export class Turns {
  private since = performance.now();

  constructor(private readonly sliceMs = 1) {}

  /** Whether the slice is used up. */
  due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  /** One turn of the event loop; the next slice starts after it. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      setImmediate(() => {
        this.since = performance.now();
        resolve();
      });
    });
  }
}
