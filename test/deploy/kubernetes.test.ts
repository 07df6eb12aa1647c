/**
 * The Kubernetes manifests in deploy/: every document validates against the Kubernetes schemas
 * (kubernetes-models), every packsync flag they use exists in the CLI, and every container keeps
 * the restrictive security context and has probes, requests and limits.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/run-cli.js';
import type { CliIo } from '../../src/cli/io.js';

const DIR = fileURLToPath(new URL('../../deploy/kubernetes', import.meta.url));

interface Doc {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [k: string]: unknown;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  securityContext?: Record<string, unknown>;
  resources?: { requests?: unknown; limits?: unknown };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  ports?: { name?: string; containerPort: number }[];
}

interface Probe {
  httpGet?: { path?: string; port?: string | number };
  exec?: unknown;
  tcpSocket?: unknown;
  initialDelaySeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
}

async function docs(): Promise<Doc[]> {
  const out: Doc[] = [];
  for (const f of (await readdir(DIR)).filter((x) => x.endsWith('.yaml')).sort()) {
    for (const d of parseAllDocuments(await readFile(join(DIR, f), 'utf8'))) {
      expect(d.errors, f).toEqual([]);
      out.push({ ...(d.toJS() as Omit<Doc, 'file'>), file: f } as Doc);
    }
  }
  return out;
}

function podSpec(d: Doc): { containers: Container[]; initContainers?: Container[]; securityContext?: Record<string, unknown> } | null {
  const spec = d.spec as Record<string, unknown> | undefined;
  if (d.kind === 'Deployment') return (spec?.template as { spec: never }).spec;
  if (d.kind === 'CronJob') return (spec?.jobTemplate as { spec: { template: { spec: never } } }).spec.template.spec;
  return null;
}

const io: CliIo = { stdout: () => undefined, stderr: () => undefined, setExitCode: () => undefined, isTTY: false, env: {}, cwd: '/' };

describe('deploy/kubernetes', () => {
  it('validates every document against the Kubernetes schemas', async () => {
    const all = await docs();
    expect(all.length).toBeGreaterThanOrEqual(10);
    // The validator is not a no-op: a wrong type in a Deployment is caught.
    const { Deployment } = (await import('kubernetes-models/apps/v1')) as unknown as Record<
      string,
      new (x: unknown) => { validate: () => void }
    >;
    expect(() => new Deployment!({ metadata: { name: 'x' }, spec: { replicas: 'one', selector: {}, template: {} } }).validate()).toThrow();
    for (const d of all) {
      const [group, version] = d.apiVersion.includes('/') ? d.apiVersion.split('/') : [null, d.apiVersion];
      const mod = (await import(group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`)) as Record<
        string,
        new (x: unknown) => { validate: () => void }
      >;
      const Model = mod[d.kind];
      expect(Model, `${d.file}: ${d.apiVersion} ${d.kind}`).toBeDefined();
      const { file: _f, ...body } = d;
      expect(() => new Model!(body).validate(), `${d.file}: ${d.kind}/${d.metadata.name}`).not.toThrow();
    }
  });

  it('uses only packsync flags that exist', async () => {
    const program = await buildProgram(io, '0.0.0');
    let checked = 0;
    for (const d of await docs()) {
      const pod = podSpec(d);
      for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])].filter((x) => x.image.includes('packsync'))) {
        const [command, ...rest] = c.args ?? [];
        const cmd = program.commands.find((x) => x.name() === command);
        expect(cmd, `${d.file}: command ${command ?? '(none)'}`).toBeDefined();
        const known = new Set(cmd!.options.map((o) => o.long));
        for (const a of rest.filter((x) => x.startsWith('--'))) {
          expect(known.has(a.split('=')[0]), `${d.file}: ${command ?? ''} ${a}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
  });

  it('approves apply up front where no terminal can: the CronJob runs apply --auto-approve', async () => {
    const applies: string[] = [];
    for (const d of await docs()) {
      const pod = podSpec(d);
      for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])].filter((x) => x.image.includes('packsync'))) {
        if (c.args?.[0] !== 'apply') continue;
        applies.push(`${d.kind}/${d.metadata.name}`);
        // Without it a pod's apply shows the plan, changes nothing and exits 1, every schedule.
        expect(c.args, `${d.file}/${c.name}`).toContain('--auto-approve');
      }
    }
    expect(applies).toContain('CronJob/packsync-apply');
  });

  it('runs every container non-root with a read-only root filesystem, limits and (for agents) probes', async () => {
    for (const d of await docs()) {
      const pod = podSpec(d);
      if (!pod) continue;
      expect(pod.securityContext, d.file).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(c.securityContext, `${d.file}/${c.name}`).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.resources?.requests && c.resources.limits, `${d.file}/${c.name}`).toBeTruthy();
        if (d.kind === 'Deployment' && c.image.includes('packsync')) {
          expect(c.livenessProbe, `${d.file}/${c.name}`).toMatchObject({ httpGet: { path: '/healthz' } });
          expect(c.readinessProbe, `${d.file}/${c.name}`).toMatchObject({ httpGet: { path: '/readyz' } });
        }
      }
    }
  });

  it('probes readiness at /readyz and liveness at /healthz on the port --listen serves, never on sync health (docs/reconcile.md)', async () => {
    const program = await buildProgram(io, '0.0.0');
    // One listener serves them all: the probes, the webhook and the metrics.
    const listenHelp = program.commands.find((c) => c.name() === 'run')!.options.find((o) => o.long === '--listen')!.description;
    for (const path of ['/healthz', '/readyz', '/metrics', '/webhook']) expect(listenHelp).toContain(path);
    let agents = 0;
    for (const d of await docs()) {
      if (d.kind !== 'Deployment') continue;
      const pod = podSpec(d)!;
      for (const c of pod.containers.filter((x) => x.image.includes('packsync') && x.args?.[0] === 'run')) {
        agents++;
        const where = `${d.file}/${c.name}`;
        const listen = c.args!.find((a) => a.startsWith('--listen='));
        expect(listen, where).toBeDefined();
        const port = Number(listen!.split(':').pop());
        const http = c.ports?.find((p) => p.name === 'http');
        expect(http?.containerPort, `${where}: the http port is the --listen port`).toBe(port);
        for (const [probe, path] of [
          [c.readinessProbe, '/readyz'],
          [c.livenessProbe, '/healthz'],
        ] as const) {
          // An HTTP probe of exactly that path on that port: not /status, not an exec of a sync check.
          expect(probe, where).toBeDefined();
          expect(
            Object.keys(probe!).filter((k) => ['httpGet', 'exec', 'tcpSocket', 'grpc'].includes(k)),
            where,
          ).toEqual(['httpGet']);
          expect(probe!.httpGet, where).toEqual({ path, port: 'http' });
        }
        // /readyz stays 200 through an invalid or failed pass; a probe never restarts the agent for
        // one either (liveness is /healthz), and three failures are needed before the pod leaves.
        expect(c.readinessProbe!.failureThreshold ?? 3, where).toBeGreaterThanOrEqual(3);
        expect(c.livenessProbe!.httpGet!.path, where).not.toBe(c.readinessProbe!.httpGet!.path);
        const scrape = (d.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template.metadata.annotations?.[
          'prometheus.io/port'
        ];
        if (scrape !== undefined) expect(Number(scrape), `${where}: metrics scraped on the --listen port`).toBe(port);
      }
    }
    expect(agents).toBeGreaterThanOrEqual(2);
  });

  it("routes the Service (/webhook, /metrics) to the agents' --listen port, which the readiness probe guards", async () => {
    const all = await docs();
    const services = all.filter((d) => d.kind === 'Service');
    expect(services.length).toBeGreaterThanOrEqual(1);
    for (const svc of services) {
      const spec = svc.spec as {
        selector: Record<string, string>;
        ports: { name?: string; port: number; targetPort?: string | number }[];
        publishNotReadyAddresses?: boolean;
      };
      // Readiness is truthful, so the Service need not publish not-ready pods to keep them.
      expect(spec.publishNotReadyAddresses ?? false, svc.file).toBe(false);
      const backends = all.filter((d) => {
        if (d.kind !== 'Deployment') return false;
        const labels = (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
        return Object.entries(spec.selector).every(([k, v]) => labels[k] === v);
      });
      expect(backends.length, `${svc.file}: Service ${svc.metadata.name} selects the agents`).toBeGreaterThanOrEqual(1);
      for (const d of backends) {
        const agent = podSpec(d)!.containers.find((c) => c.args?.[0] === 'run')!;
        const port = Number(
          agent
            .args!.find((a) => a.startsWith('--listen='))!
            .split(':')
            .pop(),
        );
        for (const p of spec.ports) {
          const target = p.targetPort ?? p.port;
          const resolved = typeof target === 'number' ? target : agent.ports?.find((cp) => cp.name === target)?.containerPort;
          // Webhook deliveries and metrics scrapes go where the readiness probe looks: one port.
          expect(resolved, `${svc.file}: ${svc.metadata.name}:${p.port} → ${d.file}`).toBe(port);
          expect(target, `${d.file}: the readiness probe and the Service use the same named port`).toBe(
            agent.readinessProbe!.httpGet!.port,
          );
        }
      }
    }
  });

  it('builds a Dockerfile on Node 24 that runs as non-root with a healthcheck and git', async () => {
    const df = await readFile(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
    expect(df).toMatch(/^FROM node:24[^\n]* AS build$/m);
    expect(df).toMatch(/^FROM node:24[^\n]* AS runtime$/m);
    expect(df).toMatch(/apt-get install[^\n]*\bgit\b/);
    expect(df).toMatch(/^USER 10001/m);
    expect(df).toMatch(/^HEALTHCHECK /m);
    expect(df).toMatch(/npm prune --omit=dev/);
  });

  it("the image's healthcheck probes /healthz on PACKSYNC_HEALTH_PORT (regression: port 8080 whatever --listen said)", async () => {
    const df = await readFile(fileURLToPath(new URL('../../Dockerfile', import.meta.url)), 'utf8');
    const cmd = JSON.parse(/^HEALTHCHECK [^\n]*\\\n\s*CMD (\[.*\])$/m.exec(df)![1]!) as string[];
    expect(cmd.slice(0, 2)).toEqual(['node', '-e']);
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(req.url === '/healthz' ? 200 : 404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const probe = (env: Record<string, string>): Promise<number | null> =>
      new Promise((resolve) =>
        spawn(process.execPath, cmd.slice(1), { env: { ...process.env, ...env }, stdio: 'ignore' }).on('exit', resolve),
      );
    try {
      expect(await probe({ PACKSYNC_HEALTH_PORT: String(port) })).toBe(0);
      expect(seen).toEqual(['/healthz']);
      server.closeAllConnections();
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(await probe({ PACKSYNC_HEALTH_PORT: String(port) })).toBe(1);
  });
});
