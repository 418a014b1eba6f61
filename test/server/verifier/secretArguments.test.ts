import fc from 'fast-check';
import YAML from 'yaml';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { readCompose } from '../../../src/server/agents/verifier/composeModel';
import { composeSecretFindings } from '../../../src/server/agents/verifier/composeSecretCheck';
import { secretArguments } from '../../../src/server/agents/verifier/secretArguments';
import { interpolations } from '../../../src/server/agents/verifier/variableCheck';
import { verifyArtifacts, type PlanArtifacts } from '../../../src/server/agents/verifier/verifyPlan';

/**
 * The verifier's rule that a secret's value never sits in a program's argument (where ps shows it), read
 * with the bash parser: generated commands that put it there are found at their line, generated commands
 * that pass it through the environment, stdin or a builtin are not.
 */

const SECRET = 'DB_PASSWORD';
const plan = (over: Partial<PlanArtifacts>): PlanArtifacts => ({ files: [], steps: [], secrets: [], documents: [], ...over });

/** Programs (some behind wrappers) that run as processes of their own. */
const program = fc.constantFrom<[string, string]>(
  ['mysql', 'mysql'], ['mariadb-dump', 'mariadb-dump'], ['curl', 'curl'], ['docker', 'docker'], ['psql', 'psql'], ['mongodump', 'mongodump'],
  ['sudo mysql', 'mysql'], ['timeout 30 curl', 'curl'], ['env LANG=C mysql', 'mysql'], ['command mysql', 'mysql'], ['ssh da-server', 'ssh'], ['sudo -E docker exec -T db mysql', 'docker'],
);
/** Ways a value is written into an argument, `V` standing for the variable's expansion. */
const argumentForm = fc.constantFrom('-p"V"', '-pV', '--password="V"', '--password V', '-u "elastic:V"', '"V"', '-d "{\\"password\\":\\"V\\"}"', '"${V_BRACED}"', "'x'\"V\"'y'");
/** What holds the secret: itself, or a variable assigned from it first. */
const holder = fc.constantFrom(
  { before: '', name: SECRET },
  { before: 'pw="$DB_PASSWORD"', name: 'pw' },
  { before: 'export PW2=$DB_PASSWORD', name: 'PW2' },
  { before: 'readonly p3="x${DB_PASSWORD}y"', name: 'p3' },
  { before: 'a="$DB_PASSWORD"; b=$a', name: 'b' },
);
/** Lines around the command that neither use nor hide the secret. */
const filler = fc.array(fc.constantFrom('cd /opt/stack', 'set -euo pipefail', 'echo start', 'docker compose ps', 'ls -la | wc -l'), { maxLength: 3 });
/** How the command sits in the script: alone, in a pipeline, a condition, a subshell, a loop. */
const shape = fc.constantFrom('C', 'C | gzip > out.gz', 'if C; then echo ok; fi', '( C )', 'for i in 1 2; do C; done', 'x=$(C)', 'true && C');

const expand = (form: string, name: string): string => form.replace('${V_BRACED}', `\${${name}}`).replace(/V/g, `$${name}`);

describe("the verifier's rule for secrets in arguments", () => {
  it('finds a secret, or a variable holding one, in an argument of any program, at its line', () => {
    fc.assert(
      fc.property(program, argumentForm, holder, filler, filler, shape, ([prog, runs], form, hold, before, after, where) => {
        const command = where.replace('C', `${prog} ${expand(form, hold.name)} --other x`);
        const lines = [...before, hold.before, command, ...after].filter(Boolean);
        const hits = secretArguments(lines.join('\n'), [SECRET]);
        expect(hits).toEqual([expect.objectContaining({ variable: hold.name, secret: SECRET, program: runs, line: lines.indexOf(command) + 1 })]);
      }),
      { numRuns: 300 },
    );
  });

  it('finds nothing where the value reaches the program through its environment, its stdin, a file or a builtin', () => {
    const safe = fc.constantFrom(
      'MYSQL_PWD="$DB_PASSWORD" mysql -u root -e "select 1"',
      'printf %s "$DB_PASSWORD" | docker login -u me --password-stdin registry.example.com',
      "printf 'user = \"elastic:%s\"\\n' \"$DB_PASSWORD\" | curl -K - http://127.0.0.1:9200/",
      'echo "$DB_PASSWORD" > .pw',
      '[ -n "$DB_PASSWORD" ] || exit 1',
      'test ${#DB_PASSWORD} -ge 12',
      'curl -H "X-Sum: $(printf %s "$DB_PASSWORD" | sha256sum)" https://example.com/',
      "ssh da-server 'bash -s' <<REMOTE\nmysql -p$DB_PASSWORD\nREMOTE",
      'f() { printf "%s" "$1"; }\nf "$DB_PASSWORD" | psql',
      'export PGPASSWORD="$DB_PASSWORD"\npsql -h db -U app',
      'mysql -p"$OTHER" -e "select 1"',
      'printf "%s" "${DB_PASSWORD}" > /dev/null',
    );
    fc.assert(
      fc.property(filler, safe, filler, (before, line, after) => {
        expect(secretArguments([...before, line, ...after].join('\n'), [SECRET])).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('blocks a plan whose step or whose server script puts a User Secret in an argument, naming the way around', async () => {
    const step = { number: 3, title: 'Load', script: 'cd /tmp\nmysql -u root -p"$DB_PASSWORD" app < dump.sql' };
    const [found] = (await verifyArtifacts(plan({ steps: [step], secrets: [SECRET] }))).filter((f) => f.code === 'secret-on-command-line');
    expect(found).toMatchObject({ severity: 'error', where: 'Step 3, line 2' });
    expect(found!.message).toContain('MYSQL_PWD');
    const remote = {
      number: 4,
      title: 'On the server',
      script: `{ printf 'export %s=%q\\n' DB_PASSWORD "$DB_PASSWORD"; cat <<'REMOTE'; } | ssh -F ssh-keys/config da-server 'bash -s'\ncd /opt/stack\ndocker compose exec -T db mysql -p"$DB_PASSWORD"\nREMOTE`,
    };
    const onServer = (await verifyArtifacts(plan({ steps: [remote], secrets: [SECRET] }))).filter((f) => f.code === 'secret-on-command-line');
    expect(onServer).toEqual([expect.objectContaining({ severity: 'error', where: 'Step 4 (the script run on the server), line 3' })]);
    // A User Secret whose name says no credential (a repository's POSTGRES_USER): said, not blocked.
    const user = { number: 2, title: 'Check', script: 'pg_isready -U "$POSTGRES_USER"' };
    const named = (await verifyArtifacts(plan({ steps: [user], secrets: ['POSTGRES_USER'] }))).filter((f) => f.code === 'secret-on-command-line');
    expect(named.map((f) => f.severity)).toEqual(['warning']);
    // az login has no other way: said, not blocked.
    const az = { number: 1, title: 'Log in', script: 'az login --service-principal -u "$AZURE_CLIENT_ID" -p "$AZURE_CLIENT_SECRET" --tenant "$AZURE_TENANT_ID"' };
    const azure = (await verifyArtifacts(plan({ steps: [az], secrets: ['AZURE_CLIENT_ID', 'AZURE_CLIENT_SECRET', 'AZURE_TENANT_ID'] }))).filter((f) => f.code === 'secret-on-command-line');
    expect(azure.map((f) => [f.severity, f.message.split(' ').slice(0, 4).join(' ')])).toEqual([['warning', 'The User Secret AZURE_CLIENT_SECRET']]);
  });

  it("blocks a compose healthcheck or command that puts a secret in an argument in the container or through Compose's substitution", () => {
    const compose = (service: Record<string, unknown>) => readCompose(YAML.stringify({ services: { db: { image: 'mysql:8.4.2', environment: { MYSQL_ROOT_PASSWORD: '${DB_PASSWORD}' }, ...service } } }));
    const errors = (service: Record<string, unknown>) => composeSecretFindings(compose(service), [SECRET]).filter((f) => f.severity === 'error').map((f) => f.where);
    expect(errors({ healthcheck: { test: ['CMD-SHELL', 'mysqladmin ping -u root -p"$${MYSQL_ROOT_PASSWORD}"'] } })).toEqual(['docker-compose.yml services.db.healthcheck.test']);
    expect(errors({ healthcheck: { test: ['CMD', 'mysqladmin', 'ping', '-p${DB_PASSWORD}'] } })).toEqual(['docker-compose.yml services.db.healthcheck.test']);
    expect(errors({ command: ['sh', '-c', 'exec mysqld --init-file=/x --password=$$MYSQL_ROOT_PASSWORD'] })).toEqual(['docker-compose.yml services.db.command']);
    expect(errors({ healthcheck: { test: ['CMD-SHELL', 'MYSQL_PWD="$${MYSQL_ROOT_PASSWORD}" mysqladmin ping -u root'] } })).toEqual([]);
    // redis-server writes its title over its command line as it starts: said, not blocked.
    const redis = composeSecretFindings(compose({ image: 'redis:7.4.1-alpine', command: ['redis-server', '--requirepass', '${DB_PASSWORD}'] }), [SECRET]);
    expect(redis.map((f) => f.severity)).toEqual(['warning']);
  });

  it('no command the catalogue runs in a container, and no healthcheck or command of its services, puts a secret in an argument', () => {
    const found: string[] = [];
    for (const product of Object.values(PRODUCTS)) {
      const secrets = product.secrets.map((s) => s.name);
      for (const service of product.services) {
        const held = Object.entries(service.environment ?? {}).flatMap(([name, value]) => (interpolations(value).refs.some((r) => secrets.includes(r.name)) ? [name] : []));
        const restore = service.backup?.restore;
        const inContainer: Array<[string, string | undefined, string[]]> = [
          ['backup.dump', service.backup?.dump, held],
          ['backup.tables', service.backup?.tables, held],
          ['backup.restore.ready', restore?.ready, Object.keys(restore?.env ?? {})],
          ['backup.restore.load', restore?.load, Object.keys(restore?.env ?? {})],
          ...(product.bootstrap?.service === service.name ? [['bootstrap.ready', product.bootstrap.ready, held] as [string, string, string[]], ...product.bootstrap.commands.map((c, i): [string, string, string[]] => [`bootstrap.commands.${i}`, c, held])] : []),
        ];
        for (const [key, script, names] of inContainer) {
          for (const hit of script ? secretArguments(script, names) : []) found.push(`${product.id}/${service.name} ${key}: ${hit.variable} in an argument of ${hit.program}`);
        }
      }
      const composeYaml = YAML.stringify({
        services: Object.fromEntries(product.services.map((s) => [s.name, { image: s.image, environment: s.environment ?? {}, ...(s.command ? { command: s.command } : {}), ...(s.healthcheck ? { healthcheck: { test: s.healthcheck.test } } : {}) }])),
      });
      for (const f of composeSecretFindings(readCompose(composeYaml), secrets).filter((x) => x.severity === 'error')) found.push(`${product.id} ${f.where}: ${f.message}`);
    }
    expect(found).toEqual([]);
  });
});
