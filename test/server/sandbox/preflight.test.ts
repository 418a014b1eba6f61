import { parsePlanSteps } from '../../../src/server/services/execution/planSteps';
import { missingTools, plannedPrograms, programsOf } from '../../../src/server/services/sandbox/preflight';

describe('sandbox tool preflight: the programs a plan calls', () => {
  it('takes the first word of each simple command, past assignments, prefixes and substitutions', () => {
    expect(programsOf('hcloud server create --name x && printf "%s" "$(hcloud server ip x)" > .t')).toEqual(['hcloud', 'printf']);
    expect(programsOf('FOO=1 sudo -E doctl compute droplet list | awk \'{print $1}\'; `az version`')).toEqual(['doctl', 'awk', 'az']);
    expect(programsOf('if command -v terraform >/dev/null; then terraform init; fi  # aws in a comment')).toEqual(['terraform', 'fi']);
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
