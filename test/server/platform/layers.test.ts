import { cycles, importGraph } from './importGraph';

/**
 * How the code may depend on itself (ARCHITECTURE.md, "Layout"): the contract imports nothing of the app
 * or the server; in the server, arrows point down only — routes, then plugins, then services, then agents,
 * then the sandbox drivers, then the database and the server's basics; in the app, the shared modules
 * (client/common, client/api) import no feature and a feature imports no other feature (what two use
 * lives in client/common; the app composes features into pages); and no file, in the server or the
 * app, imports itself back through others.
 */

const graph = importGraph();
/** With type-only imports and lazy `import()` calls: who knows whom. */
const everyImport = importGraph({ every: true });

/** A server file's layer: a lower layer never imports a higher one. */
const SERVER_LAYERS: Array<[RegExp, number, string]> = [
  [/^server\/(app|server|buildServer)\.ts$/, 7, 'the entry points'],
  [/^server\/routes\//, 6, 'routes'],
  [/^server\/plugins\//, 5, 'plugins'],
  [/^server\/services\//, 4, 'services'],
  [/^server\/agents\//, 3, 'agents'],
  [/^server\/sandbox\//, 2, 'sandbox drivers'],
  [/^server\/(db\/|errors\.ts|config\.ts|dataDir\.ts|diskFull\.ts)/, 1, 'database and basics'],
];
const layerOf = (file: string): [number, string] | undefined => {
  const found = SERVER_LAYERS.find(([pattern]) => pattern.test(file));
  return found ? [found[1], found[2]] : undefined;
};

test('the contract (src/shared) imports nothing from the app or the server', () => {
  const wrong = [...graph].flatMap(([file, targets]) => (file.startsWith('shared/') ? targets.filter((t) => !t.startsWith('shared/')).map((t) => `${file} -> ${t}`) : []));
  expect(wrong).toEqual([]);
});

test('server arrows point down: routes, plugins, services, agents, sandbox drivers, database', () => {
  const up: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    if (!from) continue;
    for (const target of targets) {
      const to = layerOf(target);
      if (to && to[0] > from[0]) up.push(`${file} (${from[1]}) -> ${target} (${to[1]})`);
    }
  }
  expect(up).toEqual([]);
});

/** The app feature a file belongs to (`client/features/<feature>/…`), if any. */
const featureOf = (file: string): string | undefined => /^client\/features\/([^/]+)\//.exec(file)?.[1];

test("the app's shared modules (client/common, client/api) import no feature", () => {
  const wrong = [...everyImport].flatMap(([file, targets]) =>
    /^client\/(common|api)\//.test(file) ? targets.filter((t) => featureOf(t)).map((t) => `${file} -> ${t}`) : [],
  );
  expect(wrong).toEqual([]);
});

/**
 * Feature-to-feature imports that stay, each with its reason (`from -> to` file pair, relative to src/).
 * None today: a new one needs a reason here, not a silent arrow.
 */
const FEATURE_IMPORTS_ALLOWED: Record<string, string> = {};

test('no app feature imports another (type-only and lazy imports included): shared code lives in client/common, pages are composed in client/app', () => {
  const arrows = [...everyImport].flatMap(([file, targets]) => {
    const from = featureOf(file);
    return targets.filter((t) => from && featureOf(t) && featureOf(t) !== from).map((t) => `${file} -> ${t}`);
  });
  expect(arrows.filter((arrow) => !(arrow in FEATURE_IMPORTS_ALLOWED))).toEqual([]);
  // An allowance whose import has gone is deleted with it.
  expect(Object.keys(FEATURE_IMPORTS_ALLOWED).filter((arrow) => !arrows.includes(arrow))).toEqual([]);
});

test('no import cycle anywhere in src/', () => {
  expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
});
