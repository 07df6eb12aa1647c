/**
 * First in, first out, in O(1) a step: the apply's ready lists (apply/executor.ts). `Array#shift`
 * on a converge's 21,000 ready actions moved the rest of the list on every start (~0.3 s of its
 * CPU, docs/performance.md, fleet-cli). Taken items are dropped in halves, not one by one.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  take(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
