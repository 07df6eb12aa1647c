/** Slack (docs/agent.md, "Notifications"): blocks to an incoming webhook, or chat.postMessage with a bot token. */
import { factsOf, JSON_HEADERS, title, toneOf } from '../provider-types.js';
import type { ProviderKind, Tone } from '../provider-types.js';

const ICON: Record<Tone, string> = { bad: ':red_circle:', warn: ':large_orange_circle:', good: ':large_green_circle:' };

/**
 * Slack mrkdwn: `&`, `<` and `>` escaped as Slack documents, so `<!everyone>`, `<!channel>` and
 * `<https://evil|https://portal.azure.com>` in a manifest value are shown, never a mention or a link.
 */
export function slackText(s: string): string {
  return s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

export const slack: ProviderKind = {
  type: 'slack',
  check: (p) =>
    !p.token && !p.address
      ? `provider "${p.name}" (slack) needs addressFile (the webhook URL)`
      : p.token && !p.channel
        ? `provider "${p.name}" (slack with a bot token) needs channel`
        : null,
  event: (p, e) => {
    const link = e.url ? `\n<${e.url}|Open in packsync>` : '';
    const text = `${ICON[toneOf(e)]} *${slackText(title(e))}*\n${slackText(e.message)}${link}`;
    const msg = {
      ...(p.channel ? { channel: p.channel } : {}),
      text: slackText(`${title(e)}: ${e.message}`),
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text } },
        { type: 'context', elements: factsOf(e).map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}:* ${slackText(v)}` })) },
      ],
    };
    const url = p.address ?? 'https://slack.com/api/chat.postMessage';
    return { url, headers: { ...JSON_HEADERS, ...(p.token ? { authorization: `Bearer ${p.token}` } : {}) }, body: JSON.stringify(msg) };
  },
};
