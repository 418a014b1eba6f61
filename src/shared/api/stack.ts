import { Type, type Static } from 'typebox';
import { StackModel } from '../stackModel';

/**
 * The stack model of a project's requirements, read and changed from the Collected Requirements panel's
 * controls (GET /api/planning/stack, POST /api/planning/stack/ops). Each control sends stack operations
 * (src/shared/stackOps.ts); the server checks each against its operation's schema, applies them to the
 * project's model and renders the requirements text from the result.
 */

/** A catalogue product the panel offers to add (searched by name and category). */
export const CatalogueProduct = Type.Object({
  id: Type.String(),
  label: Type.String(),
  category: Type.String(),
});
export type CatalogueProduct = Static<typeof CatalogueProduct>;

/** GET /api/planning/stack and the answer of POST /api/planning/stack/ops. */
export const StackResponse = Type.Object({
  model: StackModel,
  catalogue: Type.Array(CatalogueProduct),
  /** The requirements text rendered from the model (secrets in it blanked), as GET /planning/requirements answers it. */
  requirements: Type.String(),
  ready_to_continue: Type.Boolean(),
});
export type StackResponse = Static<typeof StackResponse>;

/**
 * POST /api/planning/stack/ops: operations applied in order, all or none. Each is `{ op: <name>, ...fields }`
 * as stackOps.ts's `StackOp` defines it; one that does not fit its operation's schema, or cannot be done on
 * the model, answers 400 with a detail naming it and why.
 */
export const StackOpsBody = Type.Object(
  {
    ops: Type.Array(
      Type.Object({ op: Type.String({ minLength: 1, maxLength: 40 }) }, { additionalProperties: true, description: 'A StackOp of src/shared/stackOps.ts' }),
      { minItems: 1, maxItems: 20 },
    ),
  },
  { additionalProperties: false },
);
export type StackOpsBody = Static<typeof StackOpsBody>;
