import path from 'node:path';
import ts from 'typescript';
import { readProducts } from '../../src/server/agents/catalogue/catalogue';
import { CATEGORIES } from '../../src/server/agents/catalogue/schema';

/**
 * Counts the branches on a product's name left in `src/`: places where code decides something because a
 * product is a particular one instead of reading the catalogue. Walks the TypeScript AST of every source
 * file (with the type checker) and reports, with file and line:
 *
 * - a string literal equal to a catalogue id or a service name of the catalogue (`'n8n'`, `'app'`,
 *   `'nginxProxy'`) used in a comparison (`===`, `!==`), a `case`, an element access (`x['web']`), a call's
 *   or `new`'s argument (`has('n8n')`, `component('web')`, `new Set(['app'])`), an assignment's right side
 *   or an object literal's key or value;
 * - a property access by such a name on a record keyed by strings (`PRODUCTS.web`);
 * - a regular expression literal naming a product as a word: a catalogue id or the first word of a
 *   product's label (`/\bnginx\b/`), category and ordinary English words aside. These are listed apart:
 *   most read other people's files (a repository's dependencies, an nginx config's path), not the catalogue.
 *
 * Not counted: a literal whose type is a closed union the code declares (a category `'proxy'`, an
 * exposure's `via: 'proxy'`, a button's `'ghost'` variant): those name kinds, not products; and text
 * in messages and documentation (template literals, comments).
 *
 *   npx tsx test/eval/branches.ts          the count and every place
 *   npx tsx test/eval/branches.ts --count  the count only
 */

export interface Branch {
  file: string;
  line: number;
  name: string;
  how: string;
  text: string;
}

/** Run from the repository's root, as npm scripts and jest are. */
const ROOT = process.cwd();

function productNames(): { literal: Set<string>; words: Set<string> } {
  const products = Object.values(readProducts(path.join(ROOT, 'src/server/agents/catalogue/products')));
  const literal = new Set([...products.map((p) => p.id), ...products.flatMap((p) => p.services.map((s) => s.name))]);
  // Kind words, and label words that are ordinary English first (File Browser, Home Assistant, Open WebUI, Application).
  const kinds = new Set<string>([...CATEGORIES, 'service', 'server', 'file', 'home', 'open', 'application']);
  const words = new Set(
    [...products.map((p) => p.id.toLowerCase()), ...products.map((p) => p.label.split(/[\s(]/)[0]!.toLowerCase())].filter((w) => w.length > 2 && !kinds.has(w)),
  );
  return { literal, words };
}

/** A type made only of string literals (`'proxy' | 'port'`): a closed set declared in code. */
function isClosedUnion(t: ts.Type | undefined): boolean {
  if (!t) return false;
  if (t.isStringLiteral()) return true;
  if (t.isUnion()) return t.types.every((x) => x.isStringLiteral() || (x.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)) !== 0) && t.types.some((x) => x.isStringLiteral());
  return false;
}

export function findBranches(files?: string[]): Branch[] {
  const { literal, words } = productNames();
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const roots = files ?? config.fileNames.filter((f) => f.startsWith(path.join(ROOT, 'src') + path.sep));
  const program = ts.createProgram(roots, config.options);
  const checker = program.getTypeChecker();
  const out: Branch[] = [];
  const wordRes = [...words].map((w) => ({ w, re: new RegExp(`(?<![a-z0-9])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![a-z0-9])`, 'i') }));

  for (const source of program.getSourceFiles()) {
    if (!roots.includes(path.resolve(source.fileName))) continue;
    const add = (node: ts.Node, name: string, how: string): void => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      out.push({ file: path.relative(ROOT, source.fileName), line: line + 1, name, how, text: source.text.split('\n')[line]!.trim().slice(0, 160) });
    };
    const visit = (node: ts.Node): void => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && literal.has(node.text)) {
        const how = usage(node);
        if (how && !closed(node)) add(node, node.text, how);
      } else if (ts.isPropertyAccessExpression(node) && literal.has(node.name.text)) {
        const owner = checker.getTypeAtLocation(node.expression);
        if (owner.getStringIndexType() && !owner.getProperty(node.name.text)) add(node, node.name.text, 'lookup');
      } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && literal.has(node.name.text)) {
        const record = checker.getContextualType(node.parent);
        if (record?.getStringIndexType() && !record.getProperty(node.name.text)) add(node, node.name.text, 'key');
      } else if (ts.isRegularExpressionLiteral(node)) {
        // Escapes (`\b`, `\s`) are not letters of a word.
        const source = node.text.slice(1, node.text.lastIndexOf('/')).replace(/\\[bBdDsSwW]/g, ' ');
        const named = wordRes.filter(({ re }) => re.test(source)).map(({ w }) => w);
        if (named.length) add(node, named.join(','), 'pattern');
      }
      ts.forEachChild(node, visit);
    };
    /** Where a literal decides something, or undefined for text that only says something. */
    const usage = (node: ts.Expression): string | undefined => {
      let at: ts.Node = node;
      // `['app', 'web']` and `('app')` are the literal's own place.
      while (ts.isArrayLiteralExpression(at.parent) || ts.isParenthesizedExpression(at.parent) || ts.isAsExpression(at.parent)) at = at.parent;
      const p = at.parent;
      if (ts.isBinaryExpression(p)) {
        const op = p.operatorToken.kind;
        if ([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(op)) return 'comparison';
        if (op === ts.SyntaxKind.EqualsToken && p.right === at) return 'assignment';
        return undefined;
      }
      if (ts.isCaseClause(p)) return 'case';
      if (ts.isElementAccessExpression(p) && p.argumentExpression === at) return 'lookup';
      if ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.arguments?.includes(at as ts.Expression)) return 'argument';
      if (ts.isPropertyAssignment(p) && p.name === at) return 'key';
      // A product id chosen by a condition (`on ? 'nginxProxy' : …`) is as much a branch as a comparison.
      if (ts.isConditionalExpression(p) && p.condition !== at && ts.isBinaryExpression(p.parent) && p.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return 'assignment';
      return undefined;
    };
    /** The literal stands for a member of a closed union (its contextual type, or the other side of a comparison). */
    const closed = (node: ts.Expression): boolean => {
      if (isClosedUnion(checker.getContextualType(node))) return true;
      const p = node.parent;
      if (ts.isBinaryExpression(p)) return isClosedUnion(checker.getTypeAtLocation(p.left === node ? p.right : p.left));
      if (ts.isCaseClause(p)) return isClosedUnion(checker.getTypeAtLocation(p.parent.parent.expression));
      return false;
    };
    visit(source);
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1]?.endsWith(path.join('eval', 'branches.ts'))) {
  const branches = findBranches();
  if (!process.argv.includes('--count')) for (const b of branches) console.log(`${b.file}:${b.line}  ${b.how.padEnd(10)} ${b.name.padEnd(12)} ${b.text}`);
  const patterns = branches.filter((b) => b.how === 'pattern');
  console.log(`product-name branches in src/: ${branches.length - patterns.length} by literal or lookup; ${patterns.length} regular expressions naming a product word`);
}
