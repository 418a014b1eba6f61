import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { planSteps } from '../../../src/server/agents/offline/deploySteps';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { createLocalRepositories, LOCAL_BUNDLE } from '../../../src/server/services/repositories/localRepositories';
import { writeWorkspaceFile } from '../../../src/server/services/sandbox/workspaceFiles';
import { makeRepository } from '../helpers/gitRepos';

/**
 * A local repository reaches the sandbox as a git bundle of the analysed branch: the server writes it
 * into the workspace (through the driver, in pieces) and the plan's fetch step clones that branch from
 * it, inside a real bubblewrap sandbox with no access to LOCAL_REPOS_DIR.
 */
describe('a local repository in the sandbox', () => {
  let dir: string;
  let driver: SandboxDriver;
  const sandbox: SandboxRef = { projectId: 1, username: 'user_3_1' };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bundle-'));
    // Random content, so the bundle is large enough to be written in several pieces.
    makeRepository(path.join(dir, 'repos', 'shop'), [
      { name: 'main', files: { 'README.md': '# shop\n' } },
      { name: 'release', files: { Dockerfile: 'FROM node:20-alpine\nEXPOSE 3000\n', 'data.txt': randomBytes(300_000).toString('base64') } },
    ]);
    driver = createLocalDriver({ root: path.join(dir, 'sandboxes'), limits: { network: false, memoryMb: 2048, maxProcesses: 128, cpuSeconds: 120 }, uidBase: 210_000, execTimeoutMs: 30_000 });
    await driver.initialise(sandbox);
  });
  afterAll(async () => {
    await driver.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is written into the workspace whole, and the plan clones the analysed branch from it', async () => {
    const bundle = await createLocalRepositories(path.join(dir, 'repos')).bundle!({ installationId: 1, publicInstallationId: 1 }, 'local/shop', 'release');
    expect(bundle.length).toBeGreaterThan(200_000);
    await writeWorkspaceFile(driver, sandbox, LOCAL_BUNDLE, bundle);
    expect((await driver.exec(sandbox, `ls -A | grep -c part || true; wc -c < ${LOCAL_BUNDLE}`)).output.trim().split('\n')).toEqual(['0', String(bundle.length)]);

    const facts = extractFacts(['my own app, a Node.js API, on my existing server deploy@203.0.113.7']);
    facts.acceptsDefaults = true;
    const stack = composeStack(facts, { repository: { fullName: 'local/shop', branch: 'release', local: true, layout: { dockerfiles: [{ path: 'Dockerfile', context: '.', ports: [3000] }] } } });
    const fetch = planSteps(stack).find((s) => s.title === 'Fetch the application source')!;
    const run = await driver.exec(sandbox, `set -euo pipefail\n${fetch.commands.join('\n')}\ngit -C stack/app rev-parse --abbrev-ref HEAD\nls stack/app`);
    expect(run.exitCode).toBe(0);
    expect(run.output).toMatch(/^release$/m);
    expect(run.output).toContain('data.txt');
    expect(fetch.commands.join('\n')).not.toContain('github.com');
  });
});
