import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The DevTools replay (e2e/devtoolsReplay.spec.ts) needs every endpoint and app-only slice registered at
 * once: `stateModules.ts` imports each module that injects endpoints or a slice. A new one left out makes
 * RTK Query's reducer throw on its actions in a replay, so the list is checked against the sources.
 */
const clientRoot = path.resolve(__dirname, '../../../src/client');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

it('imports every module that injects RTK Query endpoints or a lazily loaded slice', () => {
  const stateModules = readFileSync(path.join(clientRoot, 'app/stateModules.ts'), 'utf8');
  const imported = new Set([...stateModules.matchAll(/^import '(.+)';$/gm)].map(([, spec]) => path.resolve(clientRoot, 'app', spec!)));
  const registering = sourceFiles(clientRoot)
    .filter((file) => /\.injectEndpoints\(|WithSlice<typeof /.test(readFileSync(file, 'utf8')))
    .map((file) => file.replace(/\.tsx?$/, ''));
  expect(registering.length).toBeGreaterThan(10);
  expect(registering.filter((file) => !imported.has(file)).map((file) => path.relative(clientRoot, file))).toEqual([]);
});
