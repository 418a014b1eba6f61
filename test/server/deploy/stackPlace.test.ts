import fc from 'fast-check';
import { DEFAULT_BACKUP_PATHS, installedPaths, pathsOf, type StackPlace } from '../../../src/server/agents/offline/backupScripts';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { planSteps } from '../../../src/server/agents/offline/deploySteps';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { isOwnStackDirectory, LEGACY_PLACE, LEGACY_STACK_DIR, PROJECT_NAME, placeOfProject, STACK_DIRECTORY, STACKS_ROOT, stackDirectoriesIn, stackPlaceOf } from '../../../src/server/agents/offline/stackPlace';
import { validationChecks } from '../../../src/server/agents/offline/validationPlanner';

/**
 * Two projects on one server never share a stack folder, a compose project name, a cron file or any
 * backup path, whatever their names; and the deploy plan of a project works only in its own place.
 */

/** Names people (and attackers) type: anything, plus quotes, slashes, `..`, unicode and very long ones. */
const hostileName = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.constantFrom("it's", '"; rm -rf / #', '../../etc', '..', '/opt/stack', 'a/b\\c', '$(reboot)', '`id`', 'Ünïcödé 名前 🚀', ' ', '', '-', 'stack', 'STACK', 'x'.repeat(5000)),
);
const projectArb = fc.record({ id: fc.integer({ min: 1, max: 2 ** 31 - 1 }), name: hostileName });

/** Every path a place puts on the server, by what it is. */
const serverPaths = (p: StackPlace): Record<string, string> => {
  const b = pathsOf(p);
  return { dir: p.dir, etc: b.etc, state: b.state, backupScript: b.backupScript, drillScript: b.drillScript, cron: b.cron };
};

describe('stack places', () => {
  it('are safe in a shell word, under /opt/stacks, and named for docker and cron alike', () => {
    fc.assert(
      fc.property(projectArb, (project) => {
        const place = placeOfProject(project);
        expect(place.dir).toMatch(STACK_DIRECTORY);
        expect(place.dir.startsWith(`${STACKS_ROOT}/`)).toBe(true);
        expect(place.dir.split('/')).not.toContain('..');
        expect(place.project).toMatch(PROJECT_NAME);
        expect(place.dir.split('/').pop()).toBe(place.project);
        // run-parts (cron.d) skips a file whose name holds anything else, a dot included.
        expect(pathsOf(place).cron.split('/').pop()).toMatch(/^[A-Za-z0-9_-]+$/);
        for (const path of installedPaths(pathsOf(place))) expect(path).toMatch(/^\/[A-Za-z0-9_./-]+$/);
        expect(pathsOf(place).repoName).toBe(place.project);
      }),
      { numRuns: 500 },
    );
  });

  it('of two projects share nothing: folder, compose project, cron file, backup paths and repository', () => {
    fc.assert(
      fc.property(projectArb, projectArb, (a, b) => {
        fc.pre(a.id !== b.id);
        const [pa, pb] = [placeOfProject(a), placeOfProject(b)];
        expect(pa.project).not.toBe(pb.project);
        expect(pathsOf(pa).repoName).not.toBe(pathsOf(pb).repoName);
        const [sa, sb] = [serverPaths(pa), serverPaths(pb)];
        for (const x of Object.values(sa)) for (const y of Object.values(sb)) expect(x).not.toBe(y);
        // Nor is one inside the other (a folder removed with its stack would take the other's with it).
        expect(pb.dir.startsWith(`${pa.dir}/`) || pa.dir.startsWith(`${pb.dir}/`)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('of a project are the same every time (derived, never random), and a recorded directory wins', () => {
    fc.assert(
      fc.property(projectArb, (p) => {
        expect(placeOfProject(p)).toEqual(placeOfProject({ ...p }));
        expect(stackPlaceOf(p, null)).toEqual(placeOfProject(p));
      }),
    );
    // A project deployed before places existed keeps its folder, compose project and backup install.
    expect(stackPlaceOf({ id: 7, name: 'shop' }, LEGACY_STACK_DIR)).toEqual({ dir: '/opt/stack', project: 'stack', backup: DEFAULT_BACKUP_PATHS });
    expect(stackPlaceOf({ id: 7, name: 'shop' }, '/opt/stacks/old-name-7').project).toBe('old-name-7');
    expect(() => stackPlaceOf({ id: 7, name: 'shop' }, '/opt/../etc')).toThrow();
    expect(() => stackPlaceOf({ id: 7, name: 'shop' }, "/opt/it's")).toThrow();
  });
});

describe('a plan rendered for a place', () => {
  const facts = extractFacts(['PostgreSQL and Redis with nginx in front, on my existing server deploy@203.0.113.7 port 2222, plain HTTP']);
  facts.acceptsDefaults = true;
  const commandsFor = (place: StackPlace): string => planSteps(composeStack(facts, { place })).map((s) => s.commands.join('\n')).join('\n');
  /** `text` names `path` as a whole path (`/opt/stacks/a-1` is not named by `/opt/stacks/a-12`). */
  const names = (text: string, path: string): boolean => new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![A-Za-z0-9_.-])`).test(text);

  it("works in its own folder and compose project only, never another project's or the legacy one", () => {
    fc.assert(
      fc.property(projectArb, projectArb, (a, b) => {
        fc.pre(a.id !== b.id);
        const [pa, pb] = [placeOfProject(a), placeOfProject(b)];
        const text = commandsFor(pa);
        for (const path of Object.values(serverPaths(pb))) expect(names(text, path)).toBe(false);
        for (const path of Object.values(serverPaths(LEGACY_PLACE))) expect(names(text, path)).toBe(false);
        expect(names(text, '/etc/cron.d/stack-maintenance')).toBe(false);
        // Every folder a remote script works in is the stack's own.
        const cds = [...text.matchAll(/^\s*cd (\/\S+)$/gm)].map((m) => m[1]);
        expect(new Set(cds)).toEqual(new Set([pa.dir]));
        expect(text).toContain(`label=com.docker.compose.project=${pa.project}"`);
        expect(text).toContain(pathsOf(pa).cron);
      }),
      { numRuns: 40 },
    );
  });

  it("has its validation look where its steps deployed", () => {
    const place = placeOfProject({ id: 42, name: 'Shop (EU)' });
    const steps = planSteps(composeStack(facts, { place })).map((s, i) => ({ command: s.commands.join('\n'), status: 'completed' as const, step_number: i + 1, description: s.description }));
    const checks = validationChecks(steps).map((c) => c.commands.join('\n')).join('\n');
    expect(checks).toContain(`cd ${place.dir}\n`);
    expect(names(checks, LEGACY_STACK_DIR)).toBe(false);
  });
});

describe('the stack folders a shell text names', () => {
  /** Where a folder stands in steps people and models write: a cd, an rsync target, quotes, a remote script, a file in it. */
  const contexts = (dir: string): string[] => [
    `cd ${dir}`,
    `rsync -a stack/ da-server:${dir}/`,
    `ssh da-server 'cd ${dir} && docker compose up -d'`,
    `ssh da-server "ls ${dir}"`,
    `ssh da-server 'bash -s' <<'REMOTE'\ncd ${dir}\ncompose ps\nREMOTE`,
    `tar -C ${dir} -xzf -`,
    `cat ${dir}/.env;`,
    `echo "deployed in ${dir}."`,
  ];

  it('are found wherever they stand, as the folder itself', () => {
    fc.assert(
      fc.property(projectArb, fc.boolean(), (project, legacy) => {
        const dir = legacy ? LEGACY_STACK_DIR : placeOfProject(project).dir;
        for (const text of contexts(dir)) expect(stackDirectoriesIn(text)).toEqual([dir]);
        expect(isOwnStackDirectory(project.id, dir)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('are not read into other paths: the parent, a longer name, a folder elsewhere, a name built at run time', () => {
    for (const text of ['mkdir -p /opt/stacks', 'ls /opt/stacks/', '/opt/stackfoo', '/srv/opt/stack', '/opt/stacks/$NAME', '~/opt/stack', 'x/opt/stack', '$HOME/opt/stack', '${D}/opt/stack']) expect(stackDirectoriesIn(text)).toEqual([]);
    expect(stackDirectoriesIn('cd /opt/stacks/shop-7 && cd /opt/stack && cd /opt/stacks/shop-7')).toEqual(['/opt/stacks/shop-7', '/opt/stack']);
  });

  it("of another project are not a project's own", () => {
    fc.assert(
      fc.property(projectArb, projectArb, (a, b) => {
        fc.pre(a.id !== b.id);
        expect(isOwnStackDirectory(a.id, placeOfProject(b).dir)).toBe(false);
      }),
      { numRuns: 300 },
    );
    expect(isOwnStackDirectory(7, '/opt/stacks/shop-17')).toBe(false);
    expect(isOwnStackDirectory(7, '/opt/stacks')).toBe(false);
  });
});
