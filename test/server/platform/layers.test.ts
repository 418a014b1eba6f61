import { cycles, importGraph } from './importGraph';

/**
 * How the code may depend on itself (ARCHITECTURE.md, "Layout"): the contract imports nothing of the app
 * or the server; in the server, arrows point down only — routes, then plugins, then services, then agents,
 * then the sandbox drivers, then the database and the server's basics; in the app, the shared modules
 * (client/common, client/api) import no feature and no two features import each other; and no file, in
 * the server or the app, imports itself back through others.
 */

const graph = importGraph();

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
  const wrong = [...graph].flatMap(([file, targets]) =>
    /^client\/(common|api)\//.test(file) ? targets.filter((t) => featureOf(t)).map((t) => `${file} -> ${t}`) : [],
  );
  expect(wrong).toEqual([]);
});

test('no two app features import each other: what both need lives in a shared module', () => {
  const arrows = new Map<string, string>();
  for (const [file, targets] of graph) {
    const from = featureOf(file);
    for (const target of targets) {
      const to = featureOf(target);
      if (from && to && from !== to && !arrows.has(`${from} -> ${to}`)) arrows.set(`${from} -> ${to}`, `${file} -> ${target}`);
    }
  }
  const both = [...arrows.keys()].filter((arrow) => arrows.has(arrow.split(' -> ').reverse().join(' -> ')));
  expect(both.map((arrow) => `${arrow} (${arrows.get(arrow)})`)).toEqual([]);
});

test('no import cycle anywhere in src/', () => {
  expect(cycles(graph).map((c) => c.join(' -> '))).toEqual([]);
});
