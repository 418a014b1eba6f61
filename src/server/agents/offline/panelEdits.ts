import { Value } from 'typebox/value';
import { StackModel } from '../../../shared/stackModel';
import { applyStackOp, StackOp, StackOpError } from '../../../shared/stackOps';
import type { Stack, StackOptions } from './composer';
import { CATALOGUE_VIEW, modelOfStack, renderStack } from './stackModelBridge';

/**
 * The changes a person made with the Collected Requirements panel's controls, as stack operations. The
 * offline requirements agent reads the conversation afresh each turn; it applies these after the words,
 * so a removal or a port set with a control holds through the next message.
 */

/** The system prompt's block that carries them (a JSON array of StackOp, oldest first). */
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

/** The operations of the block; anything that is not a StackOp is ignored (the server wrote it checked). */
export function panelEditsOf(block: string | undefined): StackOp[] {
  if (!block) return [];
  try {
    const parsed: unknown = JSON.parse(block);
    return Array.isArray(parsed) ? parsed.filter((o): o is StackOp => Value.Check(StackOp, o)) : [];
  } catch {
    return [];
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

/** The stack the words composed, with the panel's edits applied to its model (the stack as it was when there are none). */
export function replayEdits(stack: Stack, ops: StackOp[], options: StackOptions = {}): Replayed {
  let model = modelOfStack(stack);
  if (!ops.length) return { stack, model, refused: [] };
  const refused: string[] = [];
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
