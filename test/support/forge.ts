import type { Provider } from '../../src/agent/notify/provider-types.js';

/** A forge provider of `type` at `address` for pull request tests: repository acme/manifests, token `tok-SECRET-1`. */
export const forgeProvider = (type: Provider['type'], address: string): Provider => ({
  name: 'forge',
  type,
  address,
  token: 'tok-SECRET-1',
  secret: null,
  channel: null,
  repository: 'acme/manifests',
});
