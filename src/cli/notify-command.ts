/**
 * `packsync notify test --provider NAME --notifications FILE`: sends one sample to a provider as
 * configured (chat and webhook: a sample event; commit status: `success` on `--revision`), so a
 * wrong URL, token or secret shows before the first real failure does. Exit 0 when delivered.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { addOutputOptions } from './common.js';
import type { CliIo } from './io.js';
import { UsageError } from './io.js';

interface NotifyTestFlags {
  provider: string;
  notifications: string;
  revision?: string;
  source?: string;
}

export function registerNotifyCommand(program: Command, io: CliIo): void {
  const notify = program.command('notify').description('notifications: check a provider from a --notifications file');
  const test = notify
    .command('test')
    .description('send a sample notification to one provider (commit status providers: success on --revision)')
    .requiredOption('--provider <name>', 'provider name in the notifications file')
    .requiredOption('--notifications <file>', 'the notifications file, as given to run --notifications')
    .option('--revision <sha>', 'commit to set the sample status on (github, gitlab, azuredevops)')
    .option('--source <url>', 'git URL to take owner/repo from (unless the provider sets repository:)');
  addOutputOptions(test, { colour: false }).action(async (f: NotifyTestFlags) => {
    const [
      { loadNotificationConfig },
      { chatRequest, commitStatusRequest, repositoryOf, toNotification },
      { deliver },
      { COMMIT_STATUS_TYPES },
    ] = await Promise.all([
      import('../agent/notify/config.js'),
      import('../agent/notify/payloads.js'),
      import('../agent/notify/notifier.js'),
      import('../agent/notify/providers/index.js'),
    ]);
    const config = await loadNotificationConfig(resolve(io.cwd, f.notifications), [f.provider]);
    const p = config.providers.find((x) => x.name === f.provider);
    if (!p)
      throw new UsageError(
        `no provider "${f.provider}" in ${f.notifications}; there are: ${config.providers.map((x) => x.name).join(', ')}`,
      );
    let req;
    if (COMMIT_STATUS_TYPES.has(p.type)) {
      if (!f.revision || !/^[0-9a-f]{40}$/.test(f.revision))
        throw new UsageError(`provider "${p.name}" (${p.type}) sets commit statuses: give --revision with a full 40-character commit sha`);
      const repo = repositoryOf(p, f.source ?? '');
      if (!repo) throw new UsageError(`provider "${p.name}": give --source GIT_URL or set repository: owner/repo in the provider`);
      req = commitStatusRequest(p, repo, f.revision, 'success', { description: 'packsync notification test' });
    } else {
      const now = new Date().toISOString();
      req = chatRequest(
        p,
        toNotification(
          {
            reason: 'ApplySucceeded',
            severity: 'info',
            object: 'Source/packsync-notify-test',
            revision: f.revision ?? null,
            message: 'packsync notification test: if you can read this, the provider is set up',
            count: 1,
          },
          now,
          { test: true },
        ),
      );
    }
    const r = await deliver(req);
    if (r.ok) io.stdout(`sent a sample to ${p.name} (${p.type}): HTTP ${r.status}`);
    else {
      io.stderr(`Error: delivery to ${p.name} (${p.type}) failed: ${r.error ?? 'unknown'}`);
      io.setExitCode(1);
    }
  });
}
