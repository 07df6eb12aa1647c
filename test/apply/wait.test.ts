/** Waiting for package processing: a failed package's error carries what the service said. */
import { describe, expect, it } from 'vitest';
import type { PacksyncApi } from '../../src/api/operations.js';
import type { V1PackageDetailsViewModel } from '../../src/api/wire-types.js';
import { ApplyError } from '../../src/apply/errors.js';
import { waitForPackage } from '../../src/apply/wait.js';
import type { WaitOptions } from '../../src/apply/wait.js';

const ID = 'aaaaaaaa-0000-4000-8000-000000000001';

/** An API whose package reads return `states` in turn (the last one repeats). */
function api(states: Partial<V1PackageDetailsViewModel>[]): PacksyncApi {
  let i = 0;
  const getPackage = (): Promise<V1PackageDetailsViewModel> => Promise.resolve({ id: ID, ...states[Math.min(i++, states.length - 1)] } as V1PackageDetailsViewModel);
  return { getPackage } as unknown as PacksyncApi;
}

const instant: WaitOptions = { timeoutMs: 60_000, intervalMs: 1, maxIntervalMs: 1, sleep: () => Promise.resolve(), clock: () => 0 };

describe('waitForPackage', () => {
  it('a package that ends in Error fails with PACKAGE_FAILED and the service\'s errorDetails', async () => {
    const seen: string[] = [];
    const wait = waitForPackage(api([{ state: 'Processing', errorDetails: null }, { state: 'Error', errorDetails: 'MSI analysis failed: not a valid MSI' }]), ID, instant, (s) => seen.push(s));
    await expect(wait).rejects.toThrow(ApplyError);
    await expect(wait).rejects.toMatchObject({ code: 'PACKAGE_FAILED', message: `package ${ID} failed processing: MSI analysis failed: not a valid MSI` });
    expect(seen).toEqual(['Processing']);
  });

  it('a package that completes resolves', async () => {
    await expect(waitForPackage(api([{ state: 'Running' }, { state: 'Completed' }]), ID, instant, () => undefined)).resolves.toBeUndefined();
  });
});
