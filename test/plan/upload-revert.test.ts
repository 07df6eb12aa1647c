/**
 * A package that goes back to an earlier live package (a revert of its content) is already uploaded
 * to the tenant: design §3 says once per (tenant, live package). Regression: the revert uploaded it
 * a second time, leaving two completed tasks of one package in the tenant.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeRepo } from '../support/manifests.js';
import type { SimEnv } from '../support/sim.js';
import { useSim } from '../support/use-sim.js';

let s: SimEnv;
useSim((x) => (s = x));

const uploads = async (): Promise<string[]> => (await s.sim.writes()).filter((w) => /\/v1\/tenant\/\{id\}\/upload/.test(w));

describe('a reverted package and its tenant upload', () => {
  it('upload-revert-not-again: a revert to a package already uploaded to the tenant records its task, no second upload', async () => {
    const repo = await writeRepo({ withCustom: true });
    const apply = async (): Promise<void> => {
      const r = await cli(['apply', repo, '--auto-approve', '--allow-replace'], s.env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    };
    await apply();
    const config = join(repo, 'content/contoso-agent/bin/config.json');
    const original = await readFile(config, 'utf8');
    await writeFile(config, original.replace('agent.contoso', 'agent2.contoso'));
    await apply();
    expect(await uploads()).toHaveLength(2);

    await writeFile(config, original);
    const plan = await cli(['plan', repo, '--allow-replace', '-o', 'json'], s.env);
    const upload = (JSON.parse(plan.stdout) as { objects: { key: string; change: string; reasons: string[] }[] }).objects.find(
      (o) => o.key === 'TenantUpload/contoso-agent-fabrikam',
    );
    expect(upload).toMatchObject({ change: 'update', reasons: [expect.stringContaining('already uploaded to this tenant')] });
    await apply();
    expect(await uploads()).toHaveLength(2);
    const again = await cli(['plan', repo, '--detailed-exitcode'], s.env);
    expect(again.code, again.stdout).toBe(0);
  });
});

describe('a failing tenant upload', () => {
  it('upload-failure-message-stable: the same failure reads the same on every apply (regression: each named its new task id)', async () => {
    const repo = await writeRepo({ withCustom: true });
    const tenants = (await (
      await fetch(`${s.sim.url}/v1/tenant?disablePaging=true`, { headers: { 'X-API-Key': s.env.PACKSYNC_API_KEY! } })
    ).json()) as { id: string; adminConsentGranted: boolean }[];
    const noConsent = tenants.find((t) => !t.adminConsentGranted)!.id;
    const custom = join(repo, 'custom.yaml');
    await writeFile(custom, (await readFile(custom, 'utf8')).replace('tenant: fabrikam.onmicrosoft.com', `tenant: ${noConsent}`));
    const failure = async (): Promise<string> => {
      const r = await cli(['apply', repo, '--auto-approve', '-o', 'json'], s.env);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout) as { result: { objects: { key: string; error?: { code: string; message: string } }[] } };
      const o = out.result.objects.find((x) => x.key === 'TenantUpload/contoso-agent-fabrikam');
      expect(o?.error?.code).toBe('UPLOAD_FAILED');
      return o!.error!.message;
    };
    const first = await failure();
    expect(await failure()).toBe(first);
    expect(await uploads()).toHaveLength(2);
  });
});
