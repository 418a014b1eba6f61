import fs from 'node:fs';
import path from 'node:path';

/**
 * The import picture of ARCHITECTURE.md: three blocks (client, server, shared), arrows only into shared,
 * and no circle of imports between modules at run time. Read from the sources' relative imports
 * (`import … from`, `export … from`, `import('…')`); the block rule counts `import type` too. A circle is
 * refused at run time (where modules would see each other half-loaded) and through type-only imports
 * too (erased before the code runs, but a knot the reader has to untie all the same).
 */
const SRC = path.resolve('src');
const EXTENSIONS = ['.ts', '.tsx', '/index.ts', '/index.tsx'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function importsOf(file: string, withTypes: boolean): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^\s*(import type |export type )?[^;]*?(?:from|import\()\s*'(\.{1,2}\/[^']+)'/gm)]
    .filter((m) => withTypes || !m[1])
    .map((m) => m[2]!);
  return specifiers.flatMap((specifier) => {
    const base = path.resolve(path.dirname(file), specifier);
    const found = [base, ...EXTENSIONS.map((ext) => base + ext)].find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
    return found && /\.tsx?$/.test(found) ? [found] : [];
  });
}

const blockOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;

/** Every circle a depth-first walk of the graph meets, as `a -> b -> a` paths relative to src. */
function circlesOf(graph: Map<string, string[]>): string[] {
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') circles.push(stack.slice(stack.indexOf(target)).concat(target).map((f) => path.relative(SRC, f)).join(' -> '));
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return circles;
}

describe('the import picture', () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((file) => [file, importsOf(file, true)]));
  const runtimeGraph = new Map(files.map((file) => [file, importsOf(file, false)]));

  it('has arrows between blocks only into shared', () => {
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => blockOf(target) !== blockOf(file) && blockOf(target) !== 'shared').map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
    );
    expect(crossing).toEqual([]);
  });

  it('has no circle of imports at run time', () => {
    expect(circlesOf(runtimeGraph)).toEqual([]);
  });

  it('has no circle of imports even through type-only imports', () => {
    expect(circlesOf(graph)).toEqual([]);
  });
});
