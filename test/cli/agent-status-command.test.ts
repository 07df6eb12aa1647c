/**
 * `packsync status --agent URL` against a local server standing in for the agent
 * (docs/reports.md#packsync-status---agent): an answer that is not an agent's status is
 * AGENT_UNREACHABLE, never a crash of the view; `--output json` prints an error document when it fails.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

let body = '';
let url = '';
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const BASE = { lastAppliedRevision: null, conditions: [], objects: [] };

describe('packsync status --agent', () => {
  it.each([
    ['tenants not a list', { rollouts: [{ deployment: 'x', tenants: 'nope' }] }],
    ['a rollout that is not an object', { rollouts: [null] }],
    ['rollouts not a list', { rollouts: 3 }],
    ['a condition without a type', { conditions: [{ status: 'True' }] }],
    ['an object entry that is null', { objects: [null] }],
    ['a tenant entry that is a number', { rollouts: [{ deployment: 'x', tenants: [1] }] }],
    ['a wave that is text', { rollouts: [{ deployment: 'x', currentWave: 'two', waveCount: 3 }] }],
    ['a gate hold that is text', { gates: [{ deployment: 'x', held: 'yes' }] }],
    ['problems not a list', { problems: { file: 'x' } }],
  ])('malformed-status-unreachable: %s is AGENT_UNREACHABLE, exit 1, not a crash', async (_what, extra) => {
    body = JSON.stringify({ ...BASE, ...extra });
    const r = await cli(['status', '--agent', url], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/AGENT_UNREACHABLE: .*not a packsync agent's status/);
    expect(r.stdout).toBe('');
  });

  it("malformed-status-unreachable: an older agent's status with fields missing is still shown", async () => {
    body = JSON.stringify({ ...BASE, rollouts: [{ deployment: 'Deployment/x', app: 'X', version: '1', flow: 'f', status: 'Running' }] });
    const r = await cli(['status', '--agent', url], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('X 1  f  Running');
  });

  it('malformed-status-unreachable: a wave below zero draws an empty bar, not a RangeError', async () => {
    body = JSON.stringify({ ...BASE, rollouts: [{ deployment: 'x', app: 'X', version: '1', flow: 'f', currentWave: -5, waveCount: 3 }] });
    const r = await cli(['status', '--agent', url], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('wave -5/3 [..........]');
  });

  it('status-json-error-document: --output json prints {"error"} on stdout when the agent is unreachable or not an agent', async () => {
    const dead = await cli(['status', '--agent', 'http://127.0.0.1:9/', '--output', 'json'], {});
    expect(dead.code).toBe(1);
    expect(JSON.parse(dead.stdout)).toEqual({
      error: { code: 'AGENT_UNREACHABLE', message: expect.stringContaining('127.0.0.1:9') as string },
    });
    expect(dead.stderr).toContain('AGENT_UNREACHABLE');
    body = 'not json';
    const viaFlag = await cli(['status', '--agent', url, '--output=json'], {});
    expect(viaFlag.code).toBe(1);
    expect((JSON.parse(viaFlag.stdout) as { error: { code: string } }).error.code).toBe('AGENT_UNREACHABLE');
    // A refused flag value, before the action: the document too; text output prints none.
    const early = await cli(['status', '--agent', url, '--output', 'json', '--timeout', 'abc'], {});
    expect(early.code).toBe(1);
    expect((JSON.parse(early.stdout) as { error: { code: string } }).error.code).toBe('USAGE');
    const text = await cli(['status', '--agent', 'http://127.0.0.1:9/'], {});
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
  });
});
