/** Who holds a state's lock, as recorded in the lock file or the blob's metadata. */
export interface Holder {
  pid: number;
  host: string;
  since: string;
}

export function holderText(h: Holder): string {
  return `pid ${h.pid} on host ${h.host} since ${h.since}`;
}

/** Whether a process with this pid runs on this host (EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
