/** Remote-state call failures name the step, the status and the service's code, with a hint where the cause is the setup. */
import { describe, expect, it } from 'vitest';
import { call } from '../../src/state/azblob-call.js';

describe('azblob call failures', () => {
  it('a 400 InvalidHeaderValue (an Azurite older than the SDK) says to start it with --skipApiVersionCheck (regression: no reason)', async () => {
    const e = await call('create the container', () =>
      Promise.reject(Object.assign(new Error('x'), { statusCode: 400, details: { errorCode: 'InvalidHeaderValue' } })),
    ).catch((x: unknown) => x as Error);
    expect(e).toMatchObject({ code: 'STATE_REMOTE_ERROR' });
    expect(e.message).toMatch(/^cannot create the container \(400 InvalidHeaderValue\): .*--skipApiVersionCheck/);
  });

  it('a 403 names the credentials, never the SDK message (it may carry a SAS token)', async () => {
    const e = await call('read the journal', () =>
      Promise.reject(Object.assign(new Error('https://a/b?sig=SECRET'), { statusCode: 403 })),
    ).catch((x: unknown) => x as Error);
    expect(e.message).toContain('refused the credentials');
    expect(e.message).not.toContain('SECRET');
  });
});
