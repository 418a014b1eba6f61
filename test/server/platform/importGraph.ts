import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The value imports between the files of src/ (type-only imports left out: they vanish at build time),
 * read with TypeScript's own parser.
 */

export const SRC = path.resolve(__dirname, '../../../src');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
}

const typeOnly = (st: ts.Statement): boolean => {
  if (ts.isImportDeclaration(st)) {
    const clause = st.importClause;
    if (!clause) return false;
    if (clause.isTypeOnly) return true;
    const named = clause.namedBindings;
    return !clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
  }
  return ts.isExportDeclaration(st) && st.isTypeOnly;
};

/** `import('…')` calls anywhere in a file: the lazy chunks it loads. */
function dynamicImports(node: ts.Node, out: string[] = []): string[] {
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) out.push(node.arguments[0].text);
  node.forEachChild((child) => void dynamicImports(child, out));
  return out;
}

/**
 * Each file (relative to src/) and the files it imports values from. `every`: type-only imports and
 * lazy `import()` calls too, for rules about who may know whom, not only what runs first.
 */
export function importGraph({ every = false }: { every?: boolean } = {}): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const specifiers: string[] = [];
    for (const st of source.statements) {
      if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier) || (!every && typeOnly(st))) continue;
      specifiers.push(st.moduleSpecifier.text);
    }
    if (every) specifiers.push(...dynamicImports(source));
    const targets = new Set<string>();
    for (const specifier of specifiers) {
      const to = resolveImport(file, specifier);
      if (to) targets.add(path.relative(SRC, to));
    }
    graph.set(path.relative(SRC, file), [...targets]);
  }
  return graph;
}

/** Every import cycle, each once, as the list of files around it. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join('|');
        if (!seen.has(key)) {
          seen.add(key);
          found.push(cycle);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}
