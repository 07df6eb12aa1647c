/** How apply events read in the agent's log: failures warn, progress is info, the rest debug. */
import type { Logger } from 'pino';
import type { ApplyEvent } from '../apply/events.js';

export function logApplyEvent(log: Logger, e: ApplyEvent): void {
  switch (e.type) {
    case 'action-failed':
      log.warn({ object: e.key, op: e.op, code: e.code }, `${e.description} failed: ${e.message}`);
      break;
    case 'action-waiting':
      log.info({ object: e.key, op: e.op }, `${e.description}: ${e.reason}`);
      break;
    case 'action-done':
      log.info({ object: e.key, op: e.op, durationMs: e.durationMs }, e.description);
      break;
    case 'upload-progress':
      break;
    default:
      log.debug({ object: 'key' in e ? e.key : undefined, event: e.type }, 'apply event');
  }
}
