/**
 * Regression (issue 20.16, security review 3 finding 10): manifest text reached Slack mrkdwn and Teams
 * markdown unescaped, so a value could mention `<!everyone>` or disguise a link, and the markdown
 * plan let a value page `@org/team`. The request bodies now show those characters, never obey them.
 */
import { describe, expect, it } from 'vitest';
import { chatRequest } from '../../src/agent/notify/payloads.js';
import type { NotificationEvent } from '../../src/agent/notify/provider-types.js';
import type { Provider } from '../../src/agent/notify/provider-types.js';
import { markdownText } from '../../src/plan/render/markdown.js';

const HOSTILE = '<!everyone> [Sign in](https://evil.example) <https://evil.example/login|https://portal.azure.com> @here & more';

const event: NotificationEvent = {
  reason: 'ValidationFailed',
  severity: 'error',
  object: { kind: 'Package', name: 'contoso-agent' },
  revision: 'a'.repeat(40),
  message: `content directory "${HOSTILE}" does not exist`,
  metadata: { app: HOSTILE },
  timestamp: '2026-11-26T10:00:00.000Z',
};

const provider = (type: Provider['type'], address: string): Provider => ({
  name: type,
  type,
  address,
  token: null,
  secret: null,
  channel: null,
  repository: null,
});

describe('chat notifications escape manifest text', () => {
  it('Slack: <, > and & are entities in every mrkdwn text, so no mention and no disguised link forms', () => {
    const body = JSON.parse(chatRequest(provider('slack', 'https://hooks.slack.example/x'), event).body) as {
      text: string;
      blocks: { text?: { text: string }; elements?: { text: string }[] }[];
    };
    const texts = [body.text, body.blocks[0]!.text!.text, ...body.blocks[1]!.elements!.map((e) => e.text)];
    for (const t of texts) {
      expect(t).not.toMatch(/<!everyone>|<https:\/\/evil/);
    }
    expect(body.blocks[0]!.text!.text).toContain(
      '&lt;!everyone&gt; [Sign in](https://evil.example) &lt;https://evil.example/login|https://portal.azure.com&gt; @here &amp; more',
    );
  });

  it('Teams: a markdown link never forms, in the Adaptive Card and the legacy card (which renders HTML too)', () => {
    const adaptive = chatRequest(provider('teams', 'https://contoso.webhook.office.com/workflows/x'), event).body;
    expect(adaptive).not.toContain('](https://evil');
    expect(adaptive).toContain('[Sign in]\u200b(https://evil.example)');
    const legacy = chatRequest(provider('teams', 'https://contoso.webhook.office.com/webhookb2/x/IncomingWebhook/y/z'), event).body;
    expect(legacy).not.toContain('](https://evil');
    expect(legacy).not.toMatch(/<!everyone>|<https:/);
    expect(legacy).toContain('&lt;!everyone&gt;');
  });

  it('markdown plans: a value cannot mention a user or team', () => {
    const text = markdownText('</details> @acme/security-team please approve');
    expect(text).not.toMatch(/@acme/);
    expect(text).toContain('@\u2060acme/security-team');
    expect(text).toContain('\\</details\\>');
  });
});
