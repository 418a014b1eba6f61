import fc from 'fast-check';
import YAML from 'yaml';
import { oneShotServices } from '../../../src/server/agents/offline/oneShot';
import { gatedUp } from '../../../src/server/agents/offline/releaseGate';
import { rollbackScript } from '../../../src/server/services/releases/releaseScripts';

/**
 * Which services run once is read from the compose file: our `x-one-shot` mark, `restart: "no"` written
 * out, or another service waiting for it to complete; never from its name alone, and never from an
 * absent or `on-failure` restart policy (a server that exits 0 must fail its gate).
 */
describe('services that run once', () => {
  it('reads the marks a compose file can carry', () => {
    const compose = [
      'services:',
      '  web: { image: nginx, restart: unless-stopped, depends_on: { migrate: { condition: service_completed_successfully }, cache: { condition: service_started } } }',
      '  migrate: { image: app, command: ["migrate"] }',
      '  seed: { image: app, restart: "no" }',
      '  unquoted: { image: app, restart: no }',
      '  import: { image: app, x-one-shot: runs once }',
      '  cache: { image: redis }',
      '  worker: { image: app, restart: on-failure }',
      '  init-db: { image: app, restart: always }',
    ].join('\n');
    expect(oneShotServices(compose)).toEqual(['import', 'migrate', 'seed', 'unquoted']);
    expect(oneShotServices(YAML.parse(compose) as Record<string, unknown>)).toEqual(['import', 'migrate', 'seed', 'unquoted']);
    expect(oneShotServices(undefined)).toEqual([]);
    expect(oneShotServices('services:\n  a:\n    depends_on: { gone: { condition: service_completed_successfully } }\n')).toEqual([]);
  });

  it('names only services the file has, and only a restart policy that never starts it again makes one', () => {
    const policy = fc.constantFrom(undefined, 'no', false, 'always', 'unless-stopped', 'on-failure', 'on-failure:3');
    const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
    fc.assert(
      fc.property(fc.dictionary(name, fc.record({ restart: policy, mark: fc.boolean() })), (specs) => {
        const services = Object.fromEntries(Object.entries(specs).map(([n, s]) => [n, { image: 'x', ...(s.restart === undefined ? {} : { restart: s.restart }), ...(s.mark ? { 'x-one-shot': 'yes' } : {}) }]));
        const found = oneShotServices(YAML.stringify({ services }));
        const expected = Object.entries(specs).filter(([, s]) => s.mark || s.restart === 'no' || s.restart === false).map(([n]) => n).sort();
        expect(found).toEqual(expected);
      }),
    );
  });

  it('the roll back and the start step gate a release with the tasks of its own compose file', () => {
    const target = { number: 1, files: { 'docker-compose.yml': 'services:\n  web: { image: nginx }\n  migrate: { image: app, restart: "no" }\n' } };
    const script = rollbackScript({ project: 'stack', directory: '/opt/stack', target, gateSeconds: 30 });
    expect(script).toContain("ONCE='migrate'");
    expect(script).toMatch(/^gate 30 migrate web$/m);
    const start = gatedUp({ files: ['docker-compose.yml'], oneShot: ['migrate'], seconds: 60, restoreSeconds: 30 }).join('\n');
    // The tasks are kept beside the healthy release, and the restore reads them back for that release.
    expect(start).toContain(`printf '%s\\n' 'migrate' > "$last.one-shot.new"`);
    expect(start).toContain(`if [ -f "$last.one-shot" ]; then once=$(cat "$last.one-shot"); fi`);
  });
});
