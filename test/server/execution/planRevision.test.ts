import fc from 'fast-check';
import { revisePlan, type RanStep } from '../../../src/server/services/steps/planRevision';

const ran = (n: number, description: string, command: string, status: RanStep['status'] = 'completed'): RanStep => ({ stepNumber: n, description, prompt: description, command, status });
const step = (description: string, command: string) => ({ description, prompt: description, command });

const DEPLOYED = [
  ran(1, 'Reach the server', 'ssh-keyscan host'),
  ran(2, 'Write the stack files', 'cat > compose.yml <<EOF\nservices: {db: {}}\nEOF'),
  ran(3, 'Copy the stack to the server', 'rsync -a stack/ da-server:/opt/stack/'),
  ran(4, 'Start the stack', 'compose up -d'),
  ran(5, 'Verify the deployment', 'curl -fsS http://host/'),
];

describe('revising a plan that ran', () => {
  it('marks the changed step, runs the later ones again and keeps the earlier ones', () => {
    const next = DEPLOYED.map((s) => step(s.description, s.command!));
    next[1] = step('Write the stack files', 'cat > compose.yml <<EOF\nservices: {db: {}, adminer: {}}\nEOF');
    const r = revisePlan(DEPLOYED, next);
    expect(r.differs).toBe(true);
    expect(r.steps.map((s) => (s.kind === 'kept' ? 'kept' : s.change))).toEqual(['kept', 'changed', 'rerun', 'rerun', 'rerun']);
    const changed = r.steps[1]!;
    expect(changed.kind === 'run' && changed.previousCommand).toBe(DEPLOYED[1]!.command);
    expect(r.removed).toEqual([]);
  });

  it('names added and removed steps', () => {
    const next = [step('Reach the server', 'ssh-keyscan host'), step('Write the stack files', DEPLOYED[1]!.command!), step('Open port 8080', 'ufw allow 8080'), step('Copy the stack to the server', DEPLOYED[2]!.command!), step('Start the stack', 'compose up -d')];
    const r = revisePlan(DEPLOYED, next);
    expect(r.steps.map((s) => (s.kind === 'kept' ? 'kept' : s.change))).toEqual(['kept', 'kept', 'added', 'rerun', 'rerun']);
    expect(r.removed).toEqual([{ step_number: 5, description: 'Verify the deployment', status: 'completed' }]);
  });

  it('changes nothing for the same plan, and marks nothing when no step ran', () => {
    expect(revisePlan(DEPLOYED, DEPLOYED.map((s) => step(s.description, s.command!))).differs).toBe(false);
    const waiting = DEPLOYED.map((s) => ({ ...s, status: 'waiting_approval' as const }));
    const r = revisePlan(waiting, [step('Other', 'true')]);
    expect(r.differs).toBe(true);
    expect(r.removed).toEqual([]);
    expect(r.steps).toEqual([{ kind: 'run', step: step('Other', 'true'), change: null, previousCommand: null }]);
  });

  it('never leaves a step completed that did not run with exactly its command, nor one after a difference (property)', () => {
    const titles = ['a', 'b', 'c', 'd', 'e', 'f'];
    const arbStep = fc.record({ description: fc.constantFrom(...titles), command: fc.constantFrom('x', 'y', 'z') });
    fc.assert(
      fc.property(fc.array(arbStep, { minLength: 1, maxLength: 6 }), fc.array(arbStep, { maxLength: 6 }), (before, after) => {
        const old = before.map((s, i) => ran(i + 1, s.description, s.command));
        const r = revisePlan(old, after.map((s) => step(s.description, s.command)));
        let differenceSeen = false;
        for (const [i, s] of r.steps.entries()) {
          if (s.kind === 'kept') {
            expect(s.from.command).toBe(after[i]!.command);
            if (differenceSeen) expect(s.from.status).not.toBe('completed');
          } else if (s.change !== 'rerun') differenceSeen = true;
        }
        // Every old step is either carried into the new plan or listed as removed.
        const carried = r.steps.filter((s) => s.kind === 'kept').length + r.steps.filter((s) => s.kind === 'run' && s.change !== 'added').length;
        expect(carried + r.removed.length).toBe(old.length);
      }),
    );
  });
});
