import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { readSecrets } from '../../../src/server/agents/verifier/secretArguments';
import { parseShell, shSyntax, type ShNode } from '../../../src/server/agents/verifier/shellSyntax';
import { verifyArtifacts, type PlanArtifacts } from '../../../src/server/agents/verifier/verifyPlan';
import { literalValue } from '../../../src/server/agents/verifier/wordValue';

/**
 * The verifier reads shell text nested in commands (`sh -c '…'`, `ssh host '…'`, `docker compose exec db
 * sh -c '…'`, behind sudo, su, env, timeout, xargs): generated scripts nest a command 1–3 deep in every
 * quoting style, and what it does with a secret is found at the line of the outer script it is written on.
 */

type Style = 'single' | 'double' | 'ansi' | 'unquoted';
const STYLES: Style[] = ['single', 'double', 'ansi', 'unquoted'];

/** `text` as one shell word in `style`. */
function quote(text: string, style: Style): string {
  if (style === 'single') return `'${text.replace(/'/g, "'\\''")}'`;
  if (style === 'double') return `"${text.replace(/[\\"$`]/g, '\\$&')}"`;
  if (style === 'ansi') return `$'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (!text) return "''";
  return text.replace(/[^A-Za-z0-9_\n]/g, '\\$&').replace(/\n/g, "'\n'");
}

/** Whether a line break of the text is one of the word too (so line numbers carry through). */
const keepsLines = (style: Style): boolean => style !== 'ansi';

/** Runners that start a shell on the same machine with the calling environment. */
const LOCAL = ['sh -c', 'bash -c', 'bash -ec', '/bin/sh -c', 'sudo -E sh -c', 'env LANG=C sh -c', 'timeout 5 bash -c', 'xargs -r sh -c', 'su -c', 'runuser -u app -- sh -c', 'nice -n 5 sh -c', 'docker exec -e DB_PASSWORD app sh -c'];
const CONTAINER = ['docker compose exec -T db sh -c', 'compose exec -T db bash -c', 'docker exec -i stack-db-1 sh -c', 'docker compose -f compose.yml exec db sudo -E sh -c'];
const SSH = 'ssh -F ssh-keys/config da-server';

const filler = fc.array(fc.constantFrom('cd /opt/stack', 'echo start', 'ls -la | wc -l', 'x=$(date +%s)', "printf '%s\\n' done"), { maxLength: 2 });

/** A command nested in `runners` (outermost first), each level with filler around it; the line of the command in the outer script. */
function nest(command: string, runners: Array<{ runner: string; style: Style; before: string[]; after: string[] }>): { script: string; line: number } {
  let text = command;
  let line = 1;
  for (const level of [...runners].reverse()) {
    const wrapped = `${level.runner} ${quote(text, level.style)}`;
    line = level.before.length + 1 + (keepsLines(level.style) ? line - 1 : 0);
    text = [...level.before, wrapped, ...level.after].join('\n');
  }
  return { script: text, line };
}

const level = (runners: string[]) => fc.record({ runner: fc.constantFrom(...runners), style: fc.constantFrom(...STYLES), before: filler, after: filler });
const leaking = fc.constantFrom<[string, string]>(['mysql -u root -p"V" -e "select 1"', 'mysql'], ['curl -u "elastic:V" http://127.0.0.1:9200/', 'curl'], ['mongodump --password=V --archive', 'mongodump'], ['psql "postgres://app:V@db/app"', 'psql']);
const safe = fc.constantFrom(
  'MYSQL_PWD="V" mysql -u root -e "select 1"',
  "printf '%s' \"V\" | docker login -u me --password-stdin registry.example.com",
  'echo "V" > /run/pw && chmod 600 /run/pw',
  '[ -n "V" ] || exit 1',
  'PGPASSWORD="V" psql -h db -U app -c "select 1"',
);

describe('shell text nested in commands', () => {
  it("reads a word's value as bash does, in every quoting style", () => {
    const chars = fc.constantFrom(...'ab Z09$`"\'\\\n\t*?[]{},~-=#;&|()<>!é€'.split(''));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: chars, maxLength: 12 }), fc.constantFrom(...STYLES)), { minLength: 1, maxLength: 20 }), (values) => {
        const words = values.map(([v, style]) => quote(v, style));
        const file = parseShell(`printf '%s\\0' ${words.join(' ')}`)!;
        const sh = shSyntax();
        let args: ShNode[] = [];
        sh.Walk(file, (n) => {
          if (n && sh.NodeType(n) === 'CallExpr') args = n.Args ?? [];
          return true;
        });
        const bash = execFileSync('bash', ['-c', `printf '%s\\0' ${words.join(' ')}`], { encoding: 'utf8' }).split('\0').slice(0, -1);
        expect(args.slice(2).map((a) => literalValue(a))).toEqual(bash);
        expect(bash).toEqual(values.map(([v]) => v));
      }),
      { numRuns: 60 },
    );
  });

  it('finds a secret put in an argument by a command nested 1–3 deep, at the outer line, in each quoting style', () => {
    fc.assert(
      fc.property(fc.array(level(LOCAL), { minLength: 1, maxLength: 3 }), leaking, filler, ([first, ...rest], [command, program], top) => {
        const chain = [{ ...first!, before: [...top, ...first!.before] }, ...rest];
        const { script, line } = nest(command.replace(/V/g, '$DB_PASSWORD'), chain);
        const reading = readSecrets(script, ['DB_PASSWORD']);
        const place = chain.some((l) => l.runner.startsWith('docker')) ? 'container' : 'here';
        expect(reading.hits).toEqual([expect.objectContaining({ variable: 'DB_PASSWORD', secret: 'DB_PASSWORD', program, line, place })]);
        expect(reading.unread).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("finds a container's secret used in an argument, behind ssh and the container's exec", () => {
    const container = () => new Map([['MYSQL_ROOT_PASSWORD', 'DB_PASSWORD']]);
    fc.assert(
      fc.property(
        fc.array(level(LOCAL), { maxLength: 1 }),
        fc.boolean(),
        level(CONTAINER),
        fc.array(level(['sh -c', 'bash -c', 'su -c']), { maxLength: 1 }),
        leaking,
        fc.constantFrom<Style>('single', 'double'),
        (outer, overSsh, exec, inner, [command, program], sshStyle) => {
          const chain = [...outer, ...(overSsh ? [{ runner: SSH, style: sshStyle, before: [], after: [] }] : []), exec, ...inner];
          const { script, line } = nest(command.replace(/V/g, '$MYSQL_ROOT_PASSWORD'), chain);
          const reading = readSecrets(script, ['DB_PASSWORD'], { container });
          expect(reading.hits).toEqual([expect.objectContaining({ variable: 'MYSQL_ROOT_PASSWORD', secret: 'DB_PASSWORD', program, line, place: 'container' })]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds nothing in nested scripts that pass the secret through the environment, stdin, a file or a builtin', () => {
    fc.assert(
      fc.property(fc.array(level(LOCAL), { minLength: 1, maxLength: 3 }), safe, (chain, command) => {
        const reading = readSecrets(nest(command.replace(/V/g, '$DB_PASSWORD'), chain).script, ['DB_PASSWORD']);
        expect(reading).toEqual({ hits: [], unreached: [], unread: [] });
      }),
      { numRuns: 200 },
    );
  });

  it('says where a secret does not reach the nested shell (ssh, sudo without -E, su -) and where the text is built as it runs', () => {
    const unreached = (script: string) => readSecrets(script, ['DB_PASSWORD']).unreached.map((u) => [u.secret, u.line, u.via.map((v) => v.runner).join(' > ')]);
    expect(unreached(`echo start\n${SSH} 'mysql -p"$DB_PASSWORD"'`)).toEqual([['DB_PASSWORD', 2, SSH]]);
    expect(unreached(`sudo sh -c 'x=1\nmysql -p"$DB_PASSWORD"'`)).toEqual([['DB_PASSWORD', 2, 'sudo sh -c']]);
    expect(unreached(`su - app -c 'psql "$DB_PASSWORD"'`)).toEqual([['DB_PASSWORD', 1, 'su - app -c']]);
    expect(unreached(`sudo --preserve-env=DB_PASSWORD sh -c 'MYSQL_PWD="$DB_PASSWORD" mysql'`)).toEqual([]);
    const unread = readSecrets('echo\nsh -c "mysql -p$IP $(cat /x)"', ['DB_PASSWORD']).unread;
    expect(unread.map((u) => [u.line, u.unread])).toEqual([[2, '$IP, a command substitution']]);
  });

  const plan = (script: string, secrets: string[] = []): PlanArtifacts => ({ files: [], steps: [{ number: 4, title: 'Run', script }], secrets, documents: [] });
  const shown = async (script: string, secrets: string[] = []) => (await verifyArtifacts(plan(script, secrets))).map((f) => [f.code, f.severity, f.where]);

  it("checks a nested text's syntax and ShellCheck's errors, at the outer step's line", async () => {
    const broken = await shown("echo start\nbash -c 'if true; then\n  echo x\nfi'\nssh da-server 'for f in *; do echo \"$f\"'");
    expect(broken[0]).toEqual(['bash-syntax', 'error', 'Step 4, line 5 (the shell text of ssh da-server)']);
    // ShellCheck says the same of it, there.
    expect(new Set(broken.map((f) => f[2]))).toEqual(new Set(['Step 4, line 5 (the shell text of ssh da-server)']));
    const sc = await shown("cd /tmp\nsh -c 'echo ok\n[ \"$HOME\"=/root ] && echo root\nif [[ $# > 1 ]]; then echo; fi'");
    expect(sc.filter((f) => f[1] === 'error')).toEqual([
      ['shellcheck-SC2077', 'error', 'Step 4, line 3 (the shell text of sh -c)'],
      ['shellcheck-SC2071', 'error', 'Step 4, line 4 (the shell text of sh -c)'],
    ]);
  });

  it('blocks a plan whose nested text leaks a secret or uses one that does not reach it', async () => {
    expect(await shown(`cd /tmp\nsudo -E bash -c 'mysql -u root -p"$DB_PASSWORD" app < dump.sql'`, ['DB_PASSWORD'])).toEqual([['secret-on-command-line', 'error', 'Step 4, line 2']]);
    expect(await shown(`${SSH} 'MYSQL_PWD="$DB_PASSWORD" mysql -u root'`, ['DB_PASSWORD'])).toEqual([['secret-not-passed', 'error', 'Step 4, line 1']]);
  });
});
