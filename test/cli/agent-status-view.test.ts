/**
 * The terminal view of an agent (`packsync status --agent`, docs/reports.md#packsync-status---agent):
 * colour only when asked, the change window when the agent reports one, needs-attention lines with
 * FILE:LINE:COL, and a status from an older agent (fields missing) printed without error.
 */
import { describe, expect, it } from 'vitest';
import type { AgentStatus } from '../../src/agent/http/status-types.js';
import { statusView } from '../../src/cli/agent-status-view.js';

const NOW = new Date('2026-11-25T12:00:00Z');

function status(): AgentStatus {
  return {
    source: { source: 'https://git.example.com/acme/fleet.git', ref: 'main' },
    lastAppliedRevision: 'a'.repeat(40),
    lastAppliedAt: '2026-11-25T11:00:00Z',
    lastAppliedSigner: 'alice@example.com',
    conditions: [
      { type: 'Ready', status: 'False', reason: 'ValidationFailed', message: '1 problem', lastTransitionTime: '' },
      { type: 'RolloutsHealthy', status: 'False', reason: 'RolloutHeld', message: 'Deployment/x is held', lastTransitionTime: '' },
    ],
    problems: [{ file: 'deployments/x.yaml', line: 7, column: 10, message: 'unknown state "runing"', severity: 'error' }],
    objects: [],
    rollouts: [
      {
        deployment: 'Deployment/x',
        id: 'd1',
        flow: 'seven-zip',
        package: 'x',
        app: '7-Zip',
        version: '24.08',
        status: 'Running',
        currentWave: 1,
        waveCount: 3,
        startedAt: null,
        successRate: 93.5,
        tenants: [{ tenantId: 't', tenant: 'Contoso', wave: 1, status: 'Failed', installed: 40, failed: 10 }],
        window: { open: false, until: '2026-11-30T07:00:00Z', reason: 'waits for window Mon 08:00 Europe/Oslo' },
      } as AgentStatus['rollouts'][number],
    ],
  } as unknown as AgentStatus;
}

describe('status --agent view', () => {
  it('prints health, revision, signer, attention and rollouts; colour only when asked', () => {
    const plain = statusView(status(), false, NOW);
    expect(plain).toMatch(/^Not ready {2}1 problem/);
    expect(plain).toContain(`Revision  ${'a'.repeat(40)}  applied 1 h ago`);
    expect(plain).toContain('Signer    alice@example.com');
    expect(plain).toContain('! deployments/x.yaml:7:10: unknown state "runing"');
    expect(plain).toContain('! RolloutsHealthy: Deployment/x is held');
    expect(plain).toContain(
      '7-Zip 24.08  seven-zip  Running  wave 1/3 [###.......]  success 93.5 %  waits for window Mon 08:00 Europe/Oslo (opens 2026-11-30T07:00:00Z)',
    );
    expect(plain).toContain('✗ Contoso (w1 40/50)');
    expect(plain).not.toContain('\x1b[');
    expect(statusView(status(), true, NOW)).toContain('\x1b[31m✗\x1b[0m Contoso');
  });

  it('lists what the status page lists under needs attention: a failed rollout, one whose manifest left git', () => {
    const s = status();
    const base = s.rollouts[0]!;
    s.rollouts = [
      { ...base, deployment: 'Deployment/failed', status: 'Failed', currentWave: 2 },
      { ...base, deployment: 'Deployment/left', status: 'Running', orphaned: true },
    ];
    const plain = statusView(s, false, NOW);
    const attention = plain.slice(plain.indexOf('Needs attention'), plain.indexOf('Rollouts ('));
    expect(attention).toContain('Needs attention (4)');
    expect(attention).toContain('! Deployment/failed rollout failed at wave 2/3');
    expect(attention).toContain('! Deployment/left requires pruning: its manifest left git, yet it is Running');
  });

  it('shows control characters from the agent as ?, never as terminal escapes', () => {
    const s = status();
    s.problems[0]!.message = 'bad \x1b]0;pwned\x07 value';
    expect(statusView(s, false, NOW)).toContain('bad ?]0;pwned? value');
  });

  it('prints a status with fields missing (an older agent) without failing', () => {
    const bare = { conditions: [] } as unknown as AgentStatus;
    const text = statusView(bare, false, NOW);
    expect(text).toContain('Revision  (none applied)');
    expect(text).toContain('Rollouts (0)');
  });
});
