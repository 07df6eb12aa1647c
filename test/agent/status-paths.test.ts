/**
 * Regression (issue 20.16, security review 3 finding 13): the unauthenticated `/status` and status page
 * quoted absolute paths of the agent's volume (`… does not exist (looked for <state-dir>/source/…)`).
 * Files of the checkout are named relative to the repository now, the state directory as $STATE_DIR.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent } from '../support/agent-process.js';
import type { RunningAgent } from '../support/agent-process.js';
import { manifestRepo } from '../support/manifests.js';
import type { TestRepo } from '../support/git.js';
import { tempDir } from '../support/repo.js';
import { startTestSimulator } from '../support/sim.js';
import type { TestSim } from '../support/sim.js';

let sim: TestSim;
let repo: TestRepo;
let agent: RunningAgent;
let stateDir: string;

beforeAll(async () => {
  sim = await startTestSimulator();
  repo = await manifestRepo();
  await writeFile(
    join(repo.work, 'custom.yaml'),
    'apiVersion: packsync.dev/v1\nkind: Package\nmetadata: { name: agent }\nspec:\n  custom:\n    name: Agent\n    publisher: Contoso\n    version: 1.0.0\n    sourceType: msi\n    installCommand: msiexec /i a.msi /qn\n    uninstallCommand: msiexec /x a.msi /qn\n    content: nope/missing\n',
  );
  await repo.commit('a package whose content folder is missing');
  stateDir = await tempDir('packsync-status-paths-');
  agent = await startAgent(
    ['--source', repo.fileUrl, '--interval', '1h'],
    { PACKSYNC_API_URL: sim.url, PACKSYNC_API_KEY: sim.key, PACKSYNC_STATE_DIR: stateDir, PATH: process.env.PATH ?? '', HOME: stateDir },
    stateDir,
  );
});

afterAll(async () => {
  await agent?.stop();
  await sim?.close();
});

describe('/status and the status page', () => {
  it('name the missing content folder relative to the repository and show no path of the agent host', async () => {
    const s = await agent.until('the invalid revision', (x) => x.problems.length > 0);
    const text = JSON.stringify(s);
    expect(text).toContain('nope/missing');
    expect(text).not.toContain(stateDir);
    const page = await (await fetch(`${agent.base}/`)).text();
    expect(page).toContain('nope/missing');
    expect(page).not.toContain(stateDir);
  });
});
