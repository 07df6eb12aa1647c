/**
 * When each item next changes by itself, earliest first (a binary heap with lazy deletion): the
 * simulator's account settles only what is due instead of walking every running deployment on
 * each request (docs/performance.md, "fleet-cli").
 */
export class DueQueue<T> {
  private heap: { at: number; item: T }[] = [];
  private readonly due = new Map<T, number>();

  /** Schedules `item` at `at`, replacing its earlier time; Infinity unschedules it. */
  set(item: T, at: number): void {
    if (!Number.isFinite(at)) {
      this.due.delete(item);
      return;
    }
    if (this.due.get(item) === at) return;
    this.due.set(item, at);
    this.push({ at, item });
    // Replaced times stay in the heap until they surface; rebuild before they outnumber the live ones.
    if (this.heap.length > 2 * this.due.size + 1024) this.rebuild();
  }

  /** The earliest scheduled time, Infinity when nothing is. */
  peek(): number {
    this.dropStale();
    return this.heap[0]?.at ?? Infinity;
  }

  /** Takes every item due at or before `now`, earliest first (each is unscheduled). */
  takeDue(now: number): T[] {
    const out: T[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.at > now) return out;
      this.pop();
      this.due.delete(top.item);
      out.push(top.item);
    }
  }

  clear(): void {
    this.heap = [];
    this.due.clear();
  }

  get size(): number {
    return this.due.size;
  }

  private dropStale(): void {
    while (this.heap.length > 0 && this.due.get(this.heap[0]!.item) !== this.heap[0]!.at) this.pop();
  }

  private rebuild(): void {
    this.heap = [];
    for (const [item, at] of this.due) this.push({ at, item });
  }

  private push(e: { at: number; item: T }): void {
    const h = this.heap;
    h.push(e);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (h[p]!.at <= h[i]!.at) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l]!.at < h[m]!.at) m = l;
      if (r < h.length && h[r]!.at < h[m]!.at) m = r;
      if (m === i) return;
      [h[m], h[i]] = [h[i]!, h[m]!];
      i = m;
    }
  }
}
