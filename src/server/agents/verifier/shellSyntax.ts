import { createRequire } from 'node:module';

/**
 * mvdan/sh's bash parser (the `mvdan-sh` package: GopherJS, synchronous), shared by what reads commands:
 * the tools preflight (the programs a step calls) and the plan verifier (where a secret's value goes).
 */

/** The nodes of mvdan/sh's syntax tree read here (GopherJS objects; the package ships no types). */
export interface ShNode {
  Parts?: ShNode[];
  /** A Lit's text; an Assign's value (a Word). */
  Value?: string | ShNode;
  Args?: ShNode[];
  Assigns?: ShNode[];
  /** An Assign's name, a FuncDecl's name. */
  Name?: ShNode;
  /** A ParamExp's parameter. */
  Param?: ShNode;
  Pos(): { Line(): number };
}

interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  NodeType(node: ShNode): string;
}

const loadPackage = createRequire(import.meta.url);
let syntax: ShSyntax | undefined;
/** Loaded on first use (1.5 MB of GopherJS). */
export const shSyntax = (): ShSyntax => (syntax ??= (loadPackage('mvdan-sh') as { syntax: ShSyntax }).syntax);

/** The text of a word when it is a plain literal (no quotes, expansions or globs), else undefined. */
export function literal(word: ShNode | undefined): string | undefined {
  const parts = word?.Parts ?? [];
  const value = parts.length === 1 && shSyntax().NodeType(parts[0]!) === 'Lit' ? parts[0]!.Value : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The script's syntax tree; undefined when it does not parse (the verifier's `bash -n` reports that). */
export function parseShell(script: string): ShNode | undefined {
  try {
    return shSyntax().NewParser().Parse(script, 'step');
  } catch {
    return undefined;
  }
}

/** The names of the parameters expanded straight into a word (not inside `$(…)`, `<(…)` or arithmetic). */
export function expandedNames(word: ShNode): string[] {
  const sh = shSyntax();
  const names: string[] = [];
  sh.Walk(word, (node) => {
    if (!node) return true;
    const type = sh.NodeType(node);
    if (type === 'CmdSubst' || type === 'ProcSubst' || type === 'ArithmExp') return false;
    // `${#PW}` is its length, not its value.
    if (type === 'ParamExp' && !(node as ShNode & { Length?: boolean }).Length && typeof node.Param?.Value === 'string') names.push(node.Param.Value);
    return true;
  });
  return names;
}
