/** What an account keeps of catalog releases (`releases.ts` has the behaviour), apart so the account can hold it without importing the behaviour. */
export interface ReleaseRec {
  appId: string;
  app: string;
  version: string;
  /** When the vendor released it (ISO): the version's `createdDate`. */
  releasedAt: string;
  /** Virtual time it was published to the catalog. */
  publishedAt: string;
  /** `--release-every` published it, not `POST /_sim/releases`. */
  scheduled: boolean;
}

/** What the account remembers of releases (persisted with it). */
export interface ReleaseState {
  releases: ReleaseRec[];
  /** Flows react once the import of the new version has had its virtual minutes. */
  reactions: { dueMs: number; appId: string; version: string }[];
  /** `--release-every` in virtual milliseconds (absent: off). */
  everyMs?: number;
  /** `--release-every`: the virtual time counting starts from, and how many ticks were published. */
  originMs?: number;
  ticks: number;
}

export const emptyReleases = (): ReleaseState => ({ releases: [], reactions: [], ticks: 0 });
