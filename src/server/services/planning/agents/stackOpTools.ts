import type { AgentTool } from '../../../agents/turnLoop';
import { STACK_OP_TOOLS } from '../../../../shared/stackOps';
import type { StackModel } from '../../../../shared/stackModel';
import type { PlanningWorkspace } from './planningAgent';
import { PROVIDERS } from '../../../agents/offline/knowledge';
import type { EditSource } from '../stackEditing';
import { modelChanges } from '../../../agents/offline/planCorrections';

/**
 * The stack operations as a real model's tools (one per operation, its JSON schema as parameters): the
 * requirements agent edits the project's stack model with them, as the panel's controls do, and the
 * requirements text is rendered from the result. A call that does not fit its schema or cannot be done
 * answers `Error: <why>` (the turn loop turns the 400 into the tool's answer), so the model can correct it.
 */

/**
 * A copy of a tool's JSON schema where every `provider` string lists the provider ids there are files for
 * (the shared schema takes any id, since the provider files live on the server): the model sees its choices.
 */
function withProviderIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withProviderIds);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withProviderIds(v)]));
  const provider = (out.properties as Record<string, Record<string, unknown>> | undefined)?.provider;
  if (provider?.type === 'string') provider.enum = Object.keys(PROVIDERS);
  return out;
}

export const STACK_OP_AGENT_TOOLS: AgentTool[] = STACK_OP_TOOLS.map((t) => ({
  type: 'function',
  function: { name: t.name, description: `Stack model operation: ${t.description}`, parameters: withProviderIds(t.parameters) as AgentTool['function']['parameters'] },
}));

const NAMES = new Set<string>(STACK_OP_TOOLS.map((t) => t.name));

export const isStackOpTool = (name: string): boolean => NAMES.has(name);

/** What the model reads back: the stack as it now stands, and what keeps the requirements open. */
function summary(model: StackModel): string {
  const components = model.components.map((c) => `${c.name}${c.keepPrivate ? ' (private)' : ''}${c.auto ? ' (added as a need)' : ''}`).join(', ') || 'nothing yet';
  const exposures = model.exposures
    .map((e) => (e.via === 'proxy' ? `${e.component} at ${e.domain ?? "the server's address"}${e.tls ? ' (HTTPS)' : ''}` : `${e.component} on port ${e.hostPort}`))
    .join(', ');
  const open = [
    ...(model.components.length ? [] : ['what to run']),
    ...model.unknowns.filter((u) => u.status === 'asked').map((u) => `${u.name} (not in the catalogue)`),
  ];
  const where = model.target ? '' : " Runs on: an existing server of the person's (setTarget to name it, or a new machine at a provider).";
  return `Components: ${components}. Public: ${exposures || 'nothing'}.${where} ${open.length ? `Still open: ${open.join('; ')}.` : 'The requirements are complete.'}`;
}

/**
 * Applies one operation the model called to the project's one stack model; the requirements document is
 * rendered from the new model. `source`: the requirements chat's model (its model is the whole truth), or
 * a plan's chat, whose corrections are kept in the model's ordered history like the panel's. The answer
 * says what changed, naming what was put in place of a removed component, so the model can tell the person.
 */
export async function runStackOpTool({ stackEditing }: PlanningWorkspace, projectId: number, name: string, args: Record<string, unknown>, source: Exclude<EditSource, 'panel'> | 'model' = 'model'): Promise<string> {
  const before = (await stackEditing.read(projectId)).model;
  const { model } = await stackEditing.apply(projectId, [{ ...args, op: name }], source);
  const changes = modelChanges(before, model);
  return `Applied ${name}.${changes.length ? ` Changed: ${changes.join('; ')}.` : ''} ${summary(model)}`;
}

/** What the architecture and implementation agents are told about the same tools. */
export const PLAN_STACK_OP_INSTRUCTION =
  'The stack is a model (stack_model below), the one every chat corrects. A correction that changes the stack (add, remove or replace a component, a port, a domain, what is public) is made with the stack operation tools first (removeComponent or exclude, replaceComponent, addComponent, setPort, setDomain, makePrivate, expose with confirmPublic); each answers what changed (and what was put in place of what was removed) or "Error: …" saying why it could not be done. Then save the plans rendered from the model as it now stands, and tell the person what changed and what could not, with why.';

/** The instruction that goes with the tools. */
export const STACK_OP_INSTRUCTION =
  'The stack is a model (stack_model below) that you change only with the stack operation tools: addComponent with a catalogue product id (or a custom image with its ports), removeComponent or exclude ("I do not want X"), replaceComponent, expose/setDomain/setPort, makePrivate ("keep X private"), setTarget (where it runs), askUnknown/skipUnknown for software the catalogue does not hold (never a stand-in). Each call answers the stack as it now stands, or "Error: …" saying why it could not be done: correct the call, or tell the person. The requirements document is rendered from the model after every operation.';
