/**
 * The notification provider registry (docs/architecture.md, "Adding a notification provider"): one
 * module per provider type. The config loader asks it what a provider needs, the notifier what to
 * send; adding a provider is a module here and its type in provider-types.ts.
 */
import type { ProviderKind, ProviderType } from '../provider-types.js';
import { azuredevops } from './azuredevops.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { slack } from './slack.js';
import { teams } from './teams.js';
import { webhook } from './webhook.js';

export const PROVIDER_KINDS: Readonly<Record<ProviderType, ProviderKind>> = { teams, slack, webhook, github, gitlab, azuredevops };

/** Forges: they take commit statuses and pull requests, not events. */
export const COMMIT_STATUS_TYPES: ReadonlySet<ProviderType> = new Set(
  Object.values(PROVIDER_KINDS)
    .filter((k) => k.commitStatus !== undefined)
    .map((k) => k.type),
);
