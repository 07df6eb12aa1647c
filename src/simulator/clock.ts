/**
 * The simulator's virtual clock. Real time runs `timeScale` times faster, and an admin call can
 * jump it forward, so a test or a demo sees a three-day rollout in seconds without sleeping.
 */
export class VirtualClock {
  private realStart: number;
  private offsetMs = 0;

  constructor(
    private timeScale = 1,
    private virtualStart = Date.now(),
    private readonly realNow: () => number = Date.now,
  ) {
    this.realStart = realNow();
  }

  /**
   * Changes the speed from now on, without a jump: a test that needs its CLI waits fast and then
   * only its own advances (slow machines must not move time between two steps) sets 1 midway.
   */
  setScale(timeScale: number): void {
    this.virtualStart = this.now();
    this.realStart = this.realNow();
    this.offsetMs = 0;
    this.timeScale = timeScale;
  }

  now(): number {
    return this.virtualStart + (this.realNow() - this.realStart) * this.timeScale + this.offsetMs;
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /** Real milliseconds until the virtual time `at` (0 when already past). */
  realDelayUntil(at: number): number {
    return Math.max(0, (at - this.now()) / this.timeScale);
  }

  get scale(): number {
    return this.timeScale;
  }

  /** For persistence: the virtual time now, restored as the new start. */
  snapshot(): { virtualNow: number } {
    return { virtualNow: this.now() };
  }
}

/** .NET `DateTimeOffset` style: seven fractional digits and an explicit offset (seen on the wire). */
export function dotnetTime(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-02-18T21:12:10.349Z
  return `${iso.slice(0, 23)}0000+00:00`;
}

/** Milliseconds of a time `dotnetTime` wrote (or any ISO 8601 time with an offset); NaN when it is none. */
export function parseDotnetTime(s: string): number {
  // Date.parse reads three fractional digits at most in some engines: drop the rest.
  return Date.parse(s.replace(/(\.\d{3})\d+/, '$1'));
}
