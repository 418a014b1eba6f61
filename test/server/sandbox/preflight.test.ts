import { parsePlanSteps } from '../../../src/shared/planSteps';
import { missingTools, plannedPrograms, programsOf } from '../../../src/server/services/sandbox/preflight';

describe('sandbox tool preflight: the programs a plan calls', () => {
  it('takes the first word of each simple command, past assignments, prefixes and substitutions', () => {
    expect(programsOf('hcloud server create --name x && printf "%s" "$(hcloud server ip x)" > .t')).toEqual(['hcloud', 'printf']);
    expect(programsOf('FOO=1 sudo -E doctl compute droplet list | awk \'{print $1}\'; `az version`')).toEqual(['doctl', 'awk', 'az']);
    expect(programsOf('if command -v terraform >/dev/null; then terraform init; fi  # aws in a comment')).toEqual(['terraform']);
    expect(programsOf('timeout 30 nice curl -fsS http://x | env A=1 B=2 jq .')).toEqual(['curl', 'jq']);
  });

  it('never reads words inside strings, formats or programs of other tools as programs (a real shell parser)', () => {
    const step = [
      'set -euo pipefail',
      'echo "Checking later; resolved once the proxy answers"',
      'code=$(curl -s -o /dev/null -w "%{http_code} resolved later" http://127.0.0.1)',
      'printf \'%s done; later\\n\' "$code"',
      "awk '{ print $1; system(\"later\") }' access.log | sort -u",
    ].join('\n');
    expect(programsOf(step)).toEqual(['set', 'echo', 'curl', 'printf', 'awk', 'sort']);
  });

  it("a script sent to the server runs there: its commands are not the sandbox's", () => {
    const step = ["ssh -F ssh-keys/config da-server 'bash -s' <<'REMOTE'", 'set -eu', 'docker compose up -d', 'pg_dumpall -U postgres | gzip > /opt/b.sql.gz', 'REMOTE'].join('\n');
    expect(programsOf(step)).toEqual(['ssh']);
  });

  it('a command that does not parse names nothing (the plan verifier reports its syntax)', () => {
    expect(programsOf('curl -w "port ${LD_HOST_PORT answers')).toEqual([]);
  });

  it('never reads a here-document as commands', () => {
    const command = ["cat > compose.yaml <<'EOF'", 'services:', '  web:', '    image: nginx', 'kubectl apply -f x', 'EOF', 'docker compose up -d'].join('\n');
    expect(programsOf(command)).toEqual(['cat', 'docker']);
  });

  it('names each missing tool with the steps that call it', () => {
    const plan = [
      '## Step 1: Key',
      '```bash',
      'ssh-keygen -t ed25519 -f ~/.ssh/deploy_key -N ""',
      '```',
      '## Step 2: Server',
      '```bash',
      'doctl compute ssh-key import k --public-key-file ~/.ssh/deploy_key.pub',
      'doctl compute droplet create d',
      '```',
      '## Step 3: Address',
      '```bash',
      'doctl compute droplet list d && hcloud version',
      '```',
    ].join('\n');
    const programs = plannedPrograms(parsePlanSteps(plan));
    expect([...programs.keys()]).toEqual(['ssh-keygen', 'doctl', 'hcloud']);
    expect(missingTools('doctl\n', programs)).toEqual([{ tool: 'doctl', steps: [2, 3] }]);
  });
});
