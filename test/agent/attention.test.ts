/** What the status page's "Needs attention" says of an object the last pass skipped (status-page.ts attentionOf). */
import { describe, expect, it } from 'vitest';
import { attentionOf } from '../../src/agent/http/status-page.js';

const skipped = (reason: string): Parameters<typeof attentionOf>[0] => ({
  key: 'Flow/a',
  kind: 'Flow',
  name: 'a',
  outcome: 'skipped',
  reasons: [reason],
});

describe('needs attention', () => {
  it('suspended-not-blocked-on-page: a suspended object reads as suspended, a blocked one as blocked', () => {
    // Before: "blocked: suspended", as if something stopped an object its manifest paused.
    expect(attentionOf(skipped('suspended'))).toBe('suspended: spec.suspend is true, nothing is changed');
    expect(attentionOf(skipped('not planned: Package/zip has an error'))).toBe('blocked: not planned: Package/zip has an error');
  });
});
