/**
 * The one polling helper of the tests: wait for observable state (an HTTP answer, a journal entry,
 * a file) with a deadline, instead of sleeping a guessed time. A probe that throws counts as "not
 * yet" (a server still starting); the timeout names what was awaited and, with `detail`, the state
 * last seen.
 */
export interface UntilOptions {
  /** Pause between probes; default 100 ms. */
  intervalMs?: number;
  /** Appended to the timeout error, e.g. the agent's /status. */
  detail?: () => unknown;
  /** A reason to stop waiting at once (the process under test exited), checked before each probe. */
  giveUp?: () => string | undefined | Promise<string | undefined>;
}

export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
  o: UntilOptions = {},
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const reason = await o.giveUp?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${what}: ${reason}`);
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch {
      // not there yet
    }
    if (Date.now() > end) {
      const detail = o.detail
        ? `; ${JSON.stringify(
            await Promise.resolve()
              .then(o.detail)
              .catch(() => null),
          )}`
        : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((r) => setTimeout(r, o.intervalMs ?? 100));
  }
}
