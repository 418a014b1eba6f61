import { and, eq } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Db } from '../../db/client';
import { planningDocuments } from '../../db/schema';
import { badRequest } from '../../errors';
import { emptyStackModel, StackModel } from '../../../shared/stackModel';
import { applyStackOps, StackOp, StackOpError } from '../../../shared/stackOps';
import type { CatalogueProduct } from '../../../shared/api/stack';
import { CATALOGUE_VIEW } from '../../agents/offline/stackModelBridge';
import { PROVIDERS } from '../../agents/offline/knowledge';
import { requirementsOfModel, type ModelRequirements } from '../../agents/offline/modelRequirements';

/**
 * The project's stack model, kept beside its documents (planning_documents, kind `stack`), and the one
 * place where operations change it from outside the conversation: the Collected Requirements panel's
 * controls and a real model's tool calls. After each change the requirements text is rendered from the
 * model and saved as the requirements document, so what the panel shows and what the architect reads
 * is the model.
 *
 * The panel's operations, and the corrections said in the architecture and implementation chats, are also
 * kept in order (`edits`), each with how many of the person's requirements messages the conversation had
 * read when it was made (`after`, from `wordsRead`, which the offline agent's turn reports): the offline
 * requirements agent composes the stack from the words every turn and places each edit among them, so a
 * later message about the same thing wins, and a correction made in a plan chat is not lost when the
 * requirements are talked about again.
 */

const KIND = 'stack';
/** Panel edits kept per project: each is replayed every offline turn, so they stay few. */
export const MAX_EDITS = 200;

/** Where a change to the model was made: the Collected Requirements panel, or a plan's chat. */
const EditSource = Type.Union([Type.Literal('panel'), Type.Literal('architecture'), Type.Literal('implementation')]);
export type EditSource = Static<typeof EditSource>;
const StackEdit = Type.Object({ op: StackOp, at: Type.String(), after: Type.Optional(Type.Integer({ minimum: 0 })), from: Type.Optional(EditSource) }, { additionalProperties: false });
const StackDocument = Type.Object(
  { model: StackModel, edits: Type.Array(StackEdit), stale: Type.Optional(Type.Boolean()), wordsRead: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false },
);
export interface StackDocument {
  model: StackModel;
  edits: Array<{ op: StackOp; at: string; after?: number; from?: EditSource }>;
  /** How many of the person's messages the last offline turn read. */
  wordsRead?: number;
  /** The requirements were last written whole by a model that did not render them from this model. */
  stale?: boolean;
}

/** Each operation's own schema, by name: a bad field is named against the operation meant, not the union. */
const OP_SCHEMAS = new Map(StackOp.anyOf.map((schema) => [(schema.properties.op as { const: string }).const, schema]));
export const STACK_OP_NAMES = [...OP_SCHEMAS.keys()];

/** The operation a control or a model sent, checked against its schema; StackOpError says what is wrong. */
export function checkedStackOp(raw: unknown, where: string): StackOp {
  const name = typeof raw === 'object' && raw !== null && 'op' in raw ? String((raw as { op: unknown }).op) : undefined;
  const schema = name ? OP_SCHEMAS.get(name) : undefined;
  if (!schema) throw new StackOpError(`${where}: ${name ? `"${name.slice(0, 40)}"` : 'an operation without "op"'} is not a stack operation (they are ${STACK_OP_NAMES.join(', ')})`);
  // Ajv-style issues; `boolean` is the false schema behind additionalProperties, said better by its own issue.
  const issues = [...Value.Errors(schema, raw)].filter((e) => e.keyword !== 'boolean').slice(0, 3);
  if (issues.length) {
    const said = issues.map((e) => {
      const extra = (e.params as { additionalProperties?: string[] }).additionalProperties;
      return `${e.instancePath || 'it'} ${e.message}${extra ? ` (${extra.join(', ')})` : ''}`;
    });
    throw new StackOpError(`${where} (${name}): ${said.join('; ')}`);
  }
  // The schema takes any provider id: the server's provider files say which there are.
  const provider = (raw as { target?: { provider?: string } }).target?.provider;
  if (provider !== undefined && !PROVIDERS[provider]) throw new StackOpError(`${where} (${name}): there is no provider "${provider}" (there are ${Object.keys(PROVIDERS).join(', ')})`);
  return raw as StackOp;
}

/** The catalogue the panel offers to add from, by label. */
export const STACK_CATALOGUE: CatalogueProduct[] = Object.values(CATALOGUE_VIEW)
  .map(({ id, label, category }) => ({ id, label, category }))
  .sort((a, b) => a.label.localeCompare(b.label));

export interface StackEditingDeps {
  db: Db;
  /** Saves the requirements rendered from the model (declares their secrets), as the agent's tool does. */
  saveRequirements(projectId: number, requirements: ModelRequirements & { ready: boolean }): Promise<void>;
  /** Whether the stored requirements were complete before this change (the conversation's go-ahead). */
  wasReady(projectId: number): Promise<boolean>;
  /** What is known of the target server changed (an inspection's facts came, or went with the target): after the change is stored. */
  factsChanged?(projectId: number): Promise<void>;
}

export function createStackEditing(deps: StackEditingDeps) {
  const { db } = deps;

  async function read(projectId: number): Promise<StackDocument> {
    const [row] = await db
      .select({ content: planningDocuments.content })
      .from(planningDocuments)
      .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, KIND)));
    return parse(row?.content);
  }

  function parse(content: string | undefined): StackDocument {
    if (content) {
      try {
        const doc: unknown = JSON.parse(content);
        if (Value.Check(StackDocument, doc)) return doc;
      } catch {
        // A document that does not parse is treated as none: the next change writes a good one.
      }
    }
    return { model: emptyStackModel(), edits: [] };
  }

  /**
   * Reads, changes and writes the document in one transaction with its row locked, so two controls
   * pressed at once (or on two replicas) both land, one after the other.
   */
  async function change(projectId: number, update: (doc: StackDocument) => StackDocument): Promise<StackDocument> {
    let factsMoved = false;
    const next = await db.transaction(async (tx) => {
      await tx.insert(planningDocuments).values({ projectId, kind: KIND, content: '' }).onConflictDoNothing();
      const [row] = await tx
        .select({ content: planningDocuments.content })
        .from(planningDocuments)
        .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, KIND)))
        .for('update');
      const current = parse(row?.content);
      const changed = update(current);
      factsMoved = JSON.stringify(current.model.serverFacts) !== JSON.stringify(changed.model.serverFacts);
      await tx
        .update(planningDocuments)
        .set({ content: JSON.stringify(changed), updatedAt: new Date() })
        .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, KIND)));
      return changed;
    });
    // Once stored, so what reads the facts (the plans' findings) reads the new ones.
    if (factsMoved) await deps.factsChanged?.(projectId);
    return next;
  }

  return {
    read,

    /**
     * Forgets what an inspection found of the server the User Secrets name (no target in the model): their
     * values changed, so the facts may be another server's. Its kept edits go too, or the next turn would
     * bring the facts back. Facts of a server named in words stay: they go when the words name another.
     */
    async forgetSecretsServerFacts(projectId: number): Promise<void> {
      await change(projectId, (doc) => {
        if (doc.model.target || !doc.model.serverFacts) return doc;
        const { serverFacts: _gone, ...model } = doc.model;
        return { ...doc, model, edits: doc.edits.filter((e) => e.op.op !== 'setServerFacts') };
      });
    },

    /** The model the conversation's own turn made (the offline agent's), kept with the panel's edits. */
    async keepModel(projectId: number, model: unknown, wordsRead?: unknown): Promise<void> {
      const read = typeof wordsRead === 'number' && Number.isInteger(wordsRead) && wordsRead >= 0 ? { wordsRead } : {};
      await change(projectId, (doc) => (Value.Check(StackModel, model) ? { model, edits: doc.edits, wordsRead: doc.wordsRead, ...read } : { ...doc, stale: true }));
    },


    /**
     * Applies operations in order, all or none (400 naming the one that cannot be done and why), then
     * saves the requirements rendered from the result. `panel`, `architecture`, `implementation`: kept as
     * edits for the offline agent's next turns, and complete only when the conversation had said so;
     * `model`: a real requirements model's tool call, whose model is the whole truth, complete when it runs
     * something with no name left unanswered.
     */
    async apply(projectId: number, raw: unknown[], source: EditSource | 'model'): Promise<StackDocument> {
      const at = new Date();
      let ops: StackOp[];
      try {
        ops = raw.map((o, i) => checkedStackOp(o, `operation ${i + 1}`));
      } catch (err) {
        if (err instanceof StackOpError) throw badRequest(err.message);
        throw err;
      }
      const doc = await change(projectId, (current) => {
        if (source !== 'model' && current.edits.length + ops.length > MAX_EDITS) {
          throw badRequest(`the project keeps at most ${MAX_EDITS} changes made with the panel or the plan chats; say the rest in the requirements chat`);
        }
        let model: StackModel;
        try {
          model = applyStackOps(current.model, ops, CATALOGUE_VIEW);
        } catch (err) {
          if (err instanceof StackOpError) throw badRequest(err.message);
          throw err;
        }
        const after = current.wordsRead ?? 0;
        const edits = source === 'model' ? current.edits : [...current.edits, ...ops.map((op) => ({ op, at: at.toISOString(), after, ...(source === 'panel' ? {} : { from: source }) }))];
        return { model, edits, ...(current.wordsRead !== undefined ? { wordsRead: current.wordsRead } : {}) };
      });
      const requirements = requirementsOfModel(doc.model, at);
      // Where it runs is not required: without a target the plan is for an existing server of the person's, as in words.
      const ready = requirements.open.length === 0 && (source === 'model' ? true : await deps.wasReady(projectId));
      await deps.saveRequirements(projectId, { ...requirements, ready });
      return doc;
    },
  };
}

export type StackEditing = ReturnType<typeof createStackEditing>;
