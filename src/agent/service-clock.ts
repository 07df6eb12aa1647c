/**
 * How fast the service's clock runs against ours. Gate soaks and deadlines are measured on the
 * service's clock (its `Date` header, docs/manifests.md), but the agent's wake-up timer runs on the local
 * clock: against a service whose clock runs faster (the simulator's `--time-scale`, 600 by default
 * when standalone) a 6 h soak would otherwise be waited 6 real hours. The rate is estimated from
 * (local, service) samples taken at each pass, over at least `minSpanMs` of local time; a rate near
 * 1 (a real service: the header has one-second resolution) counts as exactly 1, so a real service's
 * wake-ups are never early. Only ever makes a wait shorter: an early pass just judges again.
 */
export class ServiceClockRate {
  private readonly samples: { local: number; service: number }[] = [];

  constructor(
    private readonly minSpanMs = 10_000,
    private readonly keep = 32,
  ) {}

  observe(localMs: number, serviceMs: number | null | undefined): void {
    if (serviceMs === null || serviceMs === undefined || !Number.isFinite(serviceMs)) return;
    this.samples.push({ local: localMs, service: serviceMs });
    if (this.samples.length > this.keep) this.samples.shift();
  }

  /** Service-clock ms per local ms (1 when unknown or close to 1; at most 3,600). */
  rate(): number {
    const last = this.samples.at(-1);
    if (!last) return 1;
    // The newest sample at least minSpanMs older than the last: recent, yet long enough to measure.
    let base: { local: number; service: number } | undefined;
    for (const s of this.samples) if (last.local - s.local >= this.minSpanMs) base = s;
    if (!base) return 1;
    const r = (last.service - base.service) / (last.local - base.local);
    return r < 1.5 ? 1 : Math.min(r, 3600);
  }

  /** A wait measured on the service's clock, in local ms. */
  toLocal(serviceDelayMs: number): number {
    return serviceDelayMs / this.rate();
  }
}
