import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import YAML from 'yaml';

/**
 * Checks a compose file the way real tools do: against the Compose Specification's JSON schema
 * (vendored beside the plan verifier, src/server/agents/verifier/schema) and with Debian's `docker-compose config`, which also
 * interpolates `${VAR}` and rejects a bare `$`.
 */

const schema = JSON.parse(fs.readFileSync(path.resolve('src/server/agents/verifier/schema/compose-spec.json'), 'utf8')) as object;
// The schema names draft-07 by an https URL ajv does not hold under that key; it is draft-07, which ajv speaks.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
const validate = ajv.compile(schema);

/** Schema errors of a parsed compose document; none means it conforms. */
export function composeSpecErrors(doc: unknown): string[] {
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
}

/** Whether `docker-compose` is installed; in CI it must be (`.ci/run` installs it), so a missing tool fails there. */
export function dockerComposeAvailable(): boolean {
  const found = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI) throw new Error('docker-compose is not installed: .ci/run installs Debian\'s docker-compose for the compose checks');
  return found;
}

/**
 * Runs `docker-compose config -q` on a compose file with every variable it uses set (as the plan's
 * .env would) and the files it mounts written next to it. Answers '' when it accepts the file, else
 * what it said.
 */
export function dockerComposeConfig(yaml: string, files: Array<{ path: string; content: string }> = []): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'i11-compose-'));
  try {
    fs.writeFileSync(path.join(dir, 'docker-compose.yml'), yaml);
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
      fs.writeFileSync(path.join(dir, f.path), f.content);
    }
    // Build contexts are the cloned repositories the plan fetches: present, as they are at deploy time.
    const doc = YAML.parse(yaml) as { services?: Record<string, { build?: { context?: string } }> };
    for (const svc of Object.values(doc.services ?? {})) if (svc.build?.context) fs.mkdirSync(path.join(dir, svc.build.context), { recursive: true });
    const vars = new Set([...yaml.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}/g)].map((m) => m[1]!));
    fs.writeFileSync(path.join(dir, '.env'), [...vars].map((v) => `${v}=value-of-${v.toLowerCase()}`).join('\n') + '\n');
    try {
      execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COMPOSE_PROJECT_NAME: 'i11check' } });
      return '';
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string };
      return (e.stderr?.toString() || e.message).trim();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
