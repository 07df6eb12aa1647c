/**
 * Microsoft Teams (docs/agent.md, "Notifications"): an Adaptive Card for Workflows webhooks, or a
 * MessageCard for the retired Office 365 connector URLs. Manifest text cannot form a markdown link.
 */
import { factsOf, JSON_HEADERS, title, toneOf } from '../provider-types.js';
import type { NotificationEvent, OutgoingRequest, Provider, ProviderKind, Tone } from '../provider-types.js';

const COLOUR: Record<Tone, string> = { bad: 'Attention', warn: 'Warning', good: 'Good' };

/** Office 365 connector URLs (retired by Microsoft in favour of Workflows) only take MessageCards. */
export function isLegacyTeamsUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.hostname.endsWith('.webhook.office.com') || u.pathname.startsWith('/webhookb2/');
  } catch {
    return false;
  }
}

/**
 * Teams markdown: a link needs `](`; a zero-width space between them shows the same characters with
 * no link, so `[Sign in](https://evil)` cannot disguise where it goes. The legacy MessageCard also
 * renders HTML, so there `<` and `>` are entities too.
 */
export function teamsText(s: string, legacy = false): string {
  const text = s.replace(/\](\s*)\(/g, ']\u200b$1(');
  return legacy ? text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;')) : text;
}

function legacyCard(p: Provider, e: NotificationEvent): OutgoingRequest {
  const card = {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: teamsText(title(e), true),
    themeColor: e.severity === 'error' ? 'CF222E' : '1A7F37',
    title: teamsText(title(e), true),
    text: teamsText(e.message, true),
    sections: [{ facts: factsOf(e).map(([name, value]) => ({ name, value: teamsText(value, true) })) }],
    ...(e.url ? { potentialAction: [{ '@type': 'OpenUri', name: 'Open in packsync', targets: [{ os: 'default', uri: e.url }] }] } : {}),
  };
  return { url: p.address!, headers: JSON_HEADERS, body: JSON.stringify(card) };
}

function adaptiveCard(p: Provider, e: NotificationEvent): OutgoingRequest {
  const card = {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: teamsText(title(e)), weight: 'Bolder', size: 'Medium', wrap: true, color: COLOUR[toneOf(e)] },
            { type: 'TextBlock', text: teamsText(e.message), wrap: true },
            { type: 'FactSet', facts: factsOf(e).map(([t, value]) => ({ title: t, value: teamsText(value) })) },
          ],
          ...(e.url ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in packsync', url: e.url }] } : {}),
        },
      },
    ],
  };
  return { url: p.address!, headers: JSON_HEADERS, body: JSON.stringify(card) };
}

export const teams: ProviderKind = {
  type: 'teams',
  check: (p) => (p.address ? null : `provider "${p.name}" (teams) needs addressFile (the webhook URL)`),
  event: (p, e) => (isLegacyTeamsUrl(p.address!) ? legacyCard(p, e) : adaptiveCard(p, e)),
};
