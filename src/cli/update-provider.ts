/** The provider that opens update pull requests: `update --pull-request NAME`, `run --update-pull-request NAME`. */
import type { NotificationConfig } from '../agent/notify/config.js';
import type { Provider } from '../agent/notify/provider-types.js';
import { COMMIT_STATUS_TYPES } from '../agent/notify/providers/index.js';
import { UsageError } from './io.js';

export function pullRequestProvider(config: NotificationConfig, name: string, flag: string, file: string): Provider {
  const p = config.providers.find((x) => x.name === name);
  if (!p) throw new UsageError(`${flag}: no provider "${name}" in ${file}`);
  if (!COMMIT_STATUS_TYPES.has(p.type))
    throw new UsageError(`${flag}: provider "${name}" is ${p.type}; it must be github, gitlab or azuredevops`);
  if (!p.repository) throw new UsageError(`${flag}: provider "${name}" needs repository: owner/repo`);
  return p;
}
