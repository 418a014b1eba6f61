import { analyse, expectAccepted, planFor, removeFixtureRepositories } from '../helpers/repositoryFixtures';

/**
 * Repository plans that match the repository, from the files of real public repositories
 * (test/server/fixtures/repositories): each fixture becomes a real git repository, is read the way the
 * analysis reads it (snapshot of a branch, inspection), and the offline planner's three agents plan it
 * with that analysis, as the server gives it to them.
 */

afterAll(removeFixtureRepositories);

describe('a repository with its own compose file is deployed with it', () => {
  it('example-voting-app: its five services, three built from their folders of the checkout, on the analysed branch', async () => {
    const inspection = await analyse('example-voting-app', 'main');
    expect(inspection.layout.compose?.path).toBe('docker-compose.yml');
    const p = planFor(inspection, 'dockersamples/example-voting-app', 'main');
    expect(Object.keys(p.services).sort()).toEqual(['db', 'redis', 'result', 'vote', 'worker']);
    expect(p.services.vote!.build).toEqual({ context: './app/vote', target: 'dev' });
    expect(p.services.result!.build).toEqual({ context: './app/result' });
    expect(p.services.redis!.volumes).toEqual(['./app/healthchecks:/healthchecks']);
    expect(p.services.worker!['x-no-healthcheck']).toBeDefined();
    expect(p.architecture).toMatch(/\| vote \| built from the repository \|/);
    expect(p.architecture).toMatch(/\| db \| `postgres:15-alpine` \|/);
    expect(p.architecture).toContain('seed');
    expect(p.implementation).toContain(`git -c credential.helper='!f() { echo username=x-access-token; echo "password=$GITHUB_TOKEN"; }; f' clone --depth 1 --branch main https://github.com/dockersamples/example-voting-app.git stack/app`);
    expect(p.implementation).toContain('compose pull --quiet redis db');
    expect(p.implementation).toContain('compose build --pull vote result worker');
    expect(p.implementation).toContain('test -f stack/app/vote/Dockerfile');
    expectAccepted(p.compose, 'example-voting-app');
  });

  it('self-hosted-ai-starter-kit: prebuilt images only, so nothing is built; Ollama and Qdrant stay; tasks that run once are marked', async () => {
    const inspection = await analyse('self-hosted-ai-starter-kit', 'main');
    const p = planFor(inspection, 'n8n-io/self-hosted-ai-starter-kit', 'main', ['POSTGRES_USER', 'POSTGRES_PASSWORD', 'POSTGRES_DB', 'N8N_ENCRYPTION_KEY', 'N8N_USER_MANAGEMENT_JWT_SECRET']);
    expect(Object.keys(p.services).sort()).toEqual(['n8n', 'n8n-import', 'ollama-cpu', 'ollama-pull-llama-cpu', 'postgres', 'qdrant']);
    expect(Object.values(p.services).some((s) => s.build)).toBe(false);
    expect(p.implementation).not.toMatch(/compose build/);
    expect(p.implementation).toContain('compose pull --quiet\n');
    expect(p.implementation).toMatch(/nothing is built/);
    expect(p.services.n8n!.image).toMatch(/^n8nio\/n8n:\d/);
    expect(p.services['n8n-import']!['x-one-shot']).toBeDefined();
    expect(p.services['ollama-pull-llama-cpu']!['x-one-shot']).toBeDefined();
    expect(p.services.n8n!.env_file).toEqual(['.env']);
    expect(p.services.n8n!.volumes).toContain('./app/n8n/demo-data:/demo-data');
    // The environment of the analysis dialog is written to .env from User Secrets, and is what env_file reads.
    for (const name of ['POSTGRES_PASSWORD', 'N8N_ENCRYPTION_KEY']) {
      expect(p.secrets).toContain(name);
      expect(p.implementation).toContain(`printf '%s=%s\\n' ${name} "\${${name}:-}" >> stack/.env`);
    }
    expect(p.implementation).toContain("grep -E '^(n8n-import|ollama-pull-llama-cpu) '");
    expect(p.architecture).toMatch(/qdrant\/qdrant:\S+ pinned|qdrant: qdrant\/qdrant/);
    expectAccepted(p.compose, 'self-hosted-ai-starter-kit');
  });

  it('full-stack-fastapi-template: the master branch it was analysed on is cloned, and the backend builds with its Dockerfile from the root', async () => {
    const inspection = await analyse('full-stack-fastapi-template', 'master');
    expect(inspection.technology_stack.databases).toEqual(['PostgreSQL']);
    const p = planFor(inspection, 'fastapi/full-stack-fastapi-template', 'master');
    expect(p.implementation).toContain('--branch master');
    expect(p.implementation).not.toContain('--branch main');
    expect(p.services.backend!.build).toEqual({ context: './app', dockerfile: 'backend/Dockerfile' });
    expect(p.implementation).toContain('test -f stack/app/backend/Dockerfile');
    expect(p.secrets).toEqual(expect.arrayContaining(['SECRET_KEY', 'POSTGRES_PASSWORD', 'FIRST_SUPERUSER_PASSWORD']));
    expectAccepted(p.compose, 'full-stack-fastapi-template');
  });
});

describe('a repository without a compose file', () => {
  it('several Dockerfiles become several services, each built from its folder, beside the databases the code uses', async () => {
    const inspection = await analyse('example-voting-app', 'main', ['docker-compose.yml']);
    expect(inspection.layout.dockerfiles.map((d) => d.context)).toEqual(['result', 'vote', 'worker']);
    const p = planFor(inspection, 'dockersamples/example-voting-app', 'main');
    expect(Object.keys(p.services).sort()).toEqual(['postgres', 'redis', 'result', 'vote', 'worker']);
    expect(p.services.vote!.build).toEqual({ context: './app/vote' });
    expect(p.services.result!.environment!.DATABASE_URL).toContain('@postgres:5432/');
    expect(p.implementation).toContain('compose build --pull result vote worker');
    expect(p.implementation).toContain('test -f stack/app/worker/Dockerfile');
    expectAccepted(p.compose, 'example-voting-app');
  });

  it('a Prisma schema is evidence of its database: PostgreSQL is planned although no driver package names it', async () => {
    const inspection = await analyse('prisma-postgres-api', 'main');
    expect(inspection.technology_stack.databases).toEqual(['PostgreSQL']);
    const p = planFor(inspection, 'acme/prisma-postgres-api', 'main', ['SESSION_SECRET']);
    expect(Object.keys(p.services).sort()).toEqual(['app', 'postgres']);
    // The dialog's environment becomes the app's environment; its values are user secrets written to .env.
    expect(p.services.app!.environment).toMatchObject({ SESSION_SECRET: '${SESSION_SECRET}', DATABASE_URL: expect.stringContaining('@postgres:5432/') });
    expect(p.secrets).toContain('SESSION_SECRET');
    expect(p.implementation).toContain(`printf '%s=%s\\n' SESSION_SECRET "\${SESSION_SECRET:-}" >> stack/.env`);
    expectAccepted(p.compose, 'prisma-postgres-api');
  });

  it('a local repository is cloned from its git bundle in the workspace at the analysed branch, never from a made-up URL', async () => {
    const inspection = await analyse('prisma-postgres-api', 'release');
    const p = planFor(inspection, 'local/prisma-postgres-api', 'release');
    expect(p.implementation).toContain('git bundle verify repository.bundle');
    expect(p.implementation).toContain('git clone --branch release repository.bundle stack/app');
    expect(p.implementation).not.toMatch(/github\.com\/local\//);
    expect(p.secrets).not.toContain('GITHUB_TOKEN');
    expect(p.secrets).not.toContain('APP_REPOSITORY_URL');
  });
});

describe('the architecture says what each service of a repository is', () => {
  it('services built per Dockerfile are the application, catalogued images are named by product', async () => {
    const split = planFor(await analyse('example-voting-app', 'main', ['docker-compose.yml']), 'dockersamples/example-voting-app', 'main');
    expect(split.architecture).toMatch(/\| vote \| built from the repository \| the application itself/);
    const own = planFor(await analyse('example-voting-app', 'main'), 'dockersamples/example-voting-app', 'main');
    expect(own.architecture).toMatch(/\| db \| `postgres:15-alpine` \| PostgreSQL/);
  });
});
