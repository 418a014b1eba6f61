import fc from 'fast-check';
import { plan } from '../../../src/server/agents/offline/planner';
import { LEGACY_STACK_DIR, placeOfProject, STACK_DIRECTORY_TAG } from '../../../src/server/agents/offline/stackPlace';
import { artifactsOfPlans } from '../../../src/server/agents/verifier/planArtifacts';
import { stackFolderFindings } from '../../../src/server/agents/verifier/stackFolderCheck';
import { verifyPlans, type Finding } from '../../../src/server/agents/verifier/verifyPlan';
import { parsePlanSteps } from '../../../src/shared/planSteps';
import { EVAL_REQUESTS } from '../../eval/requests';
import { converse, SYSTEM } from '../helpers/plannerConversation';

/**
 * The verifier's stack-folder rule: a plan's steps put the stack in the project's folder and no other.
 * The offline planner's plans, rendered for any project's place, pass it; a plan that writes the legacy
 * `/opt/stack`, another project's folder or another compose project is refused, naming the step.
 */

const block = (dir: string): string => `\n<${STACK_DIRECTORY_TAG}>\n${dir}\n</${STACK_DIRECTORY_TAG}>`;

/** The offline planner's architecture and implementation plans for a request, rendered for the stack folder `dir`. */
function plansFor(says: string[], dir: string): { architecture: string; implementation: string; secrets: string[] } {
  const c = converse([...says, 'Go with sensible defaults for everything else.']);
  const architecture = plan(SYSTEM.architect(c.document) + block(dir), [{ role: 'user', content: 'Generate architecture plan' }]).toolCalls[0]!.args.plan as string;
  const implementation = plan(SYSTEM.implementation(c.document, architecture) + block(dir), [{ role: 'user', content: 'Generate implementation plan' }]).toolCalls[0]!.args.plan as string;
  return { architecture, implementation, secrets: c.secrets.map((s) => s.name) };
}

const folderFindings = (findings: Finding[]): Finding[] => findings.filter((f) => f.code === 'stack-folder');
const stepsOf = (implementation: string) =>
  parsePlanSteps(implementation)
    .filter((s) => s.command)
    .map((s) => ({ number: s.stepNumber, title: s.description, script: s.command! }));

describe('the stack-folder rule', () => {
  const base = plansFor(['n8n with PostgreSQL behind nginx with HTTPS at n8n.example.com on my server deploy@203.0.113.10'], placeOfProject({ id: 41, name: 'Automations' }).dir);
  const dir = placeOfProject({ id: 41, name: 'Automations' }).dir;

  it("passes the offline planner's plans for any project's place, the legacy one included (every request of the eval)", () => {
    const sample = EVAL_REQUESTS;
    const places = fc.sample(fc.record({ id: fc.integer({ min: 1, max: 2 ** 31 - 1 }), name: fc.string({ maxLength: 40 }) }), sample.length).map((p) => placeOfProject(p).dir);
    for (const [i, request] of sample.entries()) {
      const folder = i === 0 ? LEGACY_STACK_DIR : places[i]!;
      const p = plansFor(request.says, folder);
      // The rule alone (the whole verifier runs ShellCheck on every step; the eval runs that).
      const a = artifactsOfPlans({ ...p, stackDirectory: folder });
      expect([request.id, stackFolderFindings(a.steps, a.stackDirectory, a.composeYaml !== undefined)]).toEqual([request.id, []]);
    }
  }, 240_000);

  it('refuses a step that puts the stack in /opt/stack or in another project’s folder, naming the step', async () => {
    const steps = stepsOf(base.implementation);
    const copy = steps.find((s) => s.script.includes(`da-server:${dir}/`))!;
    for (const other of [LEGACY_STACK_DIR, placeOfProject({ id: 42, name: 'Other' }).dir]) {
      const implementation = base.implementation.replace(`da-server:${dir}/`, `da-server:${other}/`);
      const found = folderFindings(await verifyPlans({ ...base, implementation, stackDirectory: dir }));
      expect(found).toEqual([expect.objectContaining({ severity: 'error', where: `Step ${copy.number} (${copy.title})`, message: expect.stringContaining(`puts the stack in ${other}, not in the project's folder ${dir}`) })]);
    }
  }, 240_000);

  it('refuses steps that act on another compose project, or never put the stack in the project’s folder', async () => {
    const project = dir.split('/').pop()!;
    const other = base.implementation.replaceAll(`com.docker.compose.project=${project}`, 'com.docker.compose.project=shop-9');
    expect(other).not.toBe(base.implementation);
    expect(folderFindings(await verifyPlans({ ...base, implementation: other, stackDirectory: dir })).map((f) => f.message)).toContainEqual(expect.stringContaining('acts on the compose project shop-9'));
    const elsewhere = base.implementation.replaceAll(dir, '/srv/app');
    expect(folderFindings(await verifyPlans({ ...base, implementation: elsewhere, stackDirectory: dir }))).toEqual([
      expect.objectContaining({ where: 'implementation plan', message: expect.stringContaining(`no step puts the stack in the project's folder ${dir}`) }),
    ]);
  }, 240_000);

  it('holds a plan verified without a project to one folder', () => {
    const steps = [
      { number: 1, title: 'Copy', script: 'rsync -a stack/ da-server:/opt/stacks/a-1/' },
      { number: 2, title: 'Start', script: "ssh da-server 'cd /opt/stacks/a-1 && docker compose up -d'" },
      { number: 3, title: 'Check', script: "ssh da-server 'cd /opt/stack && docker compose ps'" },
    ];
    expect(stackFolderFindings(steps, undefined, true)).toEqual([expect.objectContaining({ where: 'Step 3 (Check)', message: expect.stringContaining('works in /opt/stack, while an earlier step put the stack in /opt/stacks/a-1') })]);
    expect(stackFolderFindings(steps.slice(0, 2), undefined, true)).toEqual([]);
    expect(stackFolderFindings([], '/opt/stacks/a-1', true)).toEqual([]);
  });

  it('is not fooled by where the folder stands: quotes, here-docs, VAR=, a file inside it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom((d: string) => `cd "${d}"`, (d: string) => `STACK=${d}; cd "$STACK"`, (d: string) => `ssh da-server 'bash -s' <<'EOF'\ncd ${d}\nEOF`, (d: string) => `cat ${d}/.env`, (d: string) => `tar -C '${d}' -xzf -`),
        fc.constantFrom(LEGACY_STACK_DIR, '/opt/stacks/other-7'),
        (render, wrong) => {
          const steps = [
            { number: 1, title: 'Copy', script: `rsync -a stack/ da-server:${dir}/` },
            { number: 2, title: 'Bad', script: render(wrong) },
          ];
          expect(stackFolderFindings(steps, dir, true)).toEqual([expect.objectContaining({ where: 'Step 2 (Bad)' })]);
          expect(stackFolderFindings([steps[0]!, { ...steps[1]!, script: render(dir) }], dir, true)).toEqual([]);
        },
      ),
    );
  });
});
