import { Value } from 'typebox/value';
import { StackModel } from '../../../shared/stackModel';
import { applyStackOp, StackOp, StackOpError } from '../../../shared/stackOps';
import type { Stack, StackOptions } from './composer';
import { CATALOGUE_VIEW, modelOfStack, renderStack } from './stackModelBridge';

/**
 * The changes a person made with the Collected Requirements panel's controls, as stack operations. The
 * offline requirements agent reads the conversation afresh each turn, so words and controls are one
 * ordered history: each edit knows how many of the person's messages had been read when it was made,
 * and a later message about the same thing wins over it (removed with a control, then asked for again
 * in the chat: it is back), while messages about other things leave it standing.
 */

/** The system prompt's block that carries them (a JSON array of PanelEdit, oldest first). */
export const STACK_EDITS_TAG = 'stack_edits';
/** The block with the stack model the confirmed requirements were rendered from (the architect plans from it). */
export const STACK_MODEL_TAG = 'stack_model';

/** The model of a block, when it is one. */
export function stackModelOf(block: string | undefined): StackModel | undefined {
  if (!block) return undefined;
  try {
    const parsed: unknown = JSON.parse(block);
    return Value.Check(StackModel, parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A control's operation and how many of the person's messages the conversation had read when it was used. */
export interface PanelEdit {
  op: StackOp;
  after: number;
}

/**
 * The edits of the block, oldest first; anything else is ignored (the server wrote it checked). A bare
 * operation (kept before edits were placed in the conversation) counts as made after every message.
 */
export function panelEditsOf(block: string | undefined): PanelEdit[] {
  if (!block) return [];
  try {
    const parsed: unknown = JSON.parse(block);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((o: unknown): PanelEdit[] => {
      if (Value.Check(StackOp, o)) return [{ op: o, after: Number.MAX_SAFE_INTEGER }];
      if (typeof o !== 'object' || o === null) return [];
      const { op, after } = o as { op?: unknown; after?: unknown };
      return Value.Check(StackOp, op) && typeof after === 'number' && Number.isInteger(after) && after >= 0 ? [{ op, after }] : [];
    });
  } catch {
    return [];
  }
}

/** The components (names or products) an operation decides about; none for the others. */
function componentsOf(op: StackOp): string[] | undefined {
  switch (op.op) {
    case 'addComponent':
      return [op.name ?? op.product ?? op.custom?.image ?? ''].filter(Boolean);
    case 'removeComponent':
    case 'exclude':
      return [op.name];
    case 'replaceComponent':
      return [op.name, ...(op.product ? [op.product] : [])];
    case 'expose':
    case 'makePrivate':
    case 'setPort':
    case 'setGpu':
      return [op.component];
    default:
      return undefined;
  }
}

/**
 * Whether messages, read alone, ask for or rule out a component an operation decides about: "add
 * Adminer" after Adminer was removed with a control overrides the removal even when the words had asked
 * for Adminer before (their model did not change, the person's mind did).
 */
function mentions(op: StackOp, said: StackModel): boolean {
  const wanted = new Set((componentsOf(op) ?? []).map((n) => n.toLowerCase()));
  if (!wanted.size) return false;
  return (
    said.components.some((c) => !c.auto && (wanted.has(c.name.toLowerCase()) || (c.source.kind === 'catalogue' && wanted.has(c.source.id.toLowerCase())))) ||
    said.excluded.some((x) => wanted.has(x.toLowerCase()))
  );
}

/**
 * The part of a model an operation decides: a later message that changes this part overrides the
 * operation. Component operations decide that component (by name and by product), its exposures and
 * whether it is ruled out; the others the field they set.
 */
function subjectOf(op: StackOp, m: StackModel): unknown {
  const about = (names: string[]) => {
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    const hit = (name: string, product?: string) => wanted.has(name.toLowerCase()) || (product !== undefined && wanted.has(product.toLowerCase()));
    const components = m.components.filter((c) => hit(c.name, c.source.kind === 'catalogue' ? c.source.id : undefined));
    const named = new Set(components.map((c) => c.name));
    return {
      components,
      exposures: m.exposures.filter((e) => named.has(e.component) || wanted.has(e.component)),
      excluded: m.excluded.filter((x) => wanted.has(x.toLowerCase())),
    };
  };
  const names = componentsOf(op);
  if (names) return about(names);
  switch (op.op) {
    case 'setDomain':
      return m.exposures.map((e) => (e.via === 'proxy' ? [e.component, e.domain ?? '', e.tls] : [e.component]));
    case 'link':
    case 'unlink':
      return m.links.filter((l) => l.from === op.from && l.to === op.to);
    case 'setTarget':
      return m.target ?? null;
    case 'setServerFacts':
      // Facts are about one server: once the words name another, the inspection no longer stands.
      return m.target ?? null;
    case 'setSizing':
      return m.sizing;
    case 'setBackup':
      return m.backup;
    default:
      return { unknowns: m.unknowns, leftOut: m.leftOut };
  }
}

/** What a control did, in words: "removeComponent nginx". */
export function describeOp(op: StackOp): string {
  const subject = 'name' in op ? op.name : 'component' in op ? op.component : 'product' in op ? op.product : '';
  return `${op.op}${subject ? ` ${subject}` : ''}`;
}

export interface Replayed {
  stack: Stack;
  model: StackModel;
  /** Edits that no longer apply to what the words now say, each with why. */
  refused: string[];
}

/** The conversation's words, to place edits among: what the first k messages compose, and the messages from k on alone. */
export interface PlacedWords {
  wordsAt(k: number): StackModel;
  wordsFrom(k: number): StackModel;
  messages: number;
}

/**
 * The stack the words composed, with the panel's edits that no later message overrode applied to its
 * model in order (the stack as it was when there are none): an edit made after k messages stands unless
 * the messages after it changed what it decides or asked about its component again.
 */
export function replayEdits(stack: Stack, edits: PanelEdit[], options: StackOptions = {}, words?: PlacedWords): Replayed {
  let model = modelOfStack(stack);
  if (!edits.length) return { stack, model, refused: [] };
  const refused: string[] = [];
  const at = new Map<number, StackModel>();
  const wordsAt = (k: number): StackModel => {
    let m = at.get(k);
    if (!m) at.set(k, (m = words!.wordsAt(k)));
    return m;
  };
  const standing = (edit: PanelEdit): boolean => {
    if (!words || edit.after >= words.messages) return true;
    if (mentions(edit.op, words.wordsFrom(edit.after))) return false;
    return JSON.stringify(subjectOf(edit.op, wordsAt(edit.after))) === JSON.stringify(subjectOf(edit.op, wordsAt(words.messages)));
  };
  const ops = edits.filter(standing).map((e) => e.op);
  if (!ops.length) return { stack, model, refused: [] };
  for (const op of ops) {
    try {
      model = applyStackOp(model, op, CATALOGUE_VIEW);
    } catch (err) {
      if (!(err instanceof StackOpError)) throw err;
      refused.push(`${describeOp(op)}: ${err.message}`);
    }
  }
  return { stack: renderStack(model, { ...options, ...(stack.serverFacts ? { serverFacts: stack.serverFacts } : {}) }), model, refused };
}
