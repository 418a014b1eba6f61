import { applyEdits } from '../../../src/server/services/steps/commandEdits';
import { stepChange } from '../../../src/server/agents/offline/stepChange';

const LONG = [
  'ssh -F ssh-keys/config da-server bash -s <<\'REMOTE\'',
  'set -euo pipefail',
  'cd /opt/stack',
  'compose pull --quiet',
  'docker-compose up -d',
  'for i in $(seq 1 60); do compose ps; sleep 5; done',
  ...Array.from({ length: 24 }, (_, i) => `echo "line ${i}"`),
  'REMOTE',
].join('\n');

const applied = (command: string, message: string): string => {
  const change = stepChange(command, message);
  if ('question' in change) throw new Error(change.question);
  return 'command' in change ? change.command : applyEdits(command, change.edits);
};
const changedLines = (a: string, b: string): number => {
  const x = a.split('\n');
  const y = b.split('\n');
  return Math.max(x.length, y.length) - x.filter((l, i) => l === y[i]).length;
};

describe('changing a step with the agent keeps what was not asked', () => {
  it('replaces the one line a quoted command stands for in a 30-line step', () => {
    const out = applied(LONG, 'use `docker compose up -d --wait` instead');
    expect(out).toContain('docker compose up -d --wait');
    expect(out).not.toContain('docker-compose up -d');
    expect(changedLines(LONG, out)).toBe(1);
    expect(out.split('\n')).toHaveLength(LONG.split('\n').length);
  });

  it('takes "replace `a` with `b`", "use `b` instead of `a`", removals and additions', () => {
    expect(applied(LONG, 'replace `compose pull --quiet` with `compose pull`')).toContain('\ncompose pull\n');
    expect(applied(LONG, 'use `sleep 2` instead of `sleep 5`')).toContain('compose ps; sleep 2; done');
    const removed = applied(LONG, 'remove `echo "line 3"`');
    expect(removed).not.toContain('line 3"');
    expect(removed.split('\n')).toHaveLength(LONG.split('\n').length - 1);
    expect(applied(LONG, 'add `df -h` after `cd /opt/stack`')).toContain('cd /opt/stack\ndf -h\ncompose pull');
    expect(applied('mkdir -p deploy\nls', 'also add `df -h`')).toBe('mkdir -p deploy\nls\ndf -h');
  });

  it('replaces the whole command only when asked, or when it is one line', () => {
    expect(applied(LONG, 'replace the whole command with `true`')).toBe('true');
    expect(applied('docker compose up -d', 'command to `docker compose up -d --wait`')).toBe('docker compose up -d --wait');
  });

  it('asks instead of guessing when a quote resembles no line', () => {
    const change = stepChange(LONG, 'use `kubectl apply -f x.yaml`');
    expect(change).toEqual({ question: expect.stringContaining('cannot tell which one') });
  });

  it('refuses an edit whose part is missing or ambiguous', () => {
    expect(() => applyEdits('a\nb', [{ find: 'c', replace: 'd' }])).toThrow(/does not contain/);
    expect(() => applyEdits('a\na', [{ find: 'a', replace: 'd' }])).toThrow(/more than once/);
  });
});
