import type { StackModel } from '../../../shared/stackModel';
import { renderRequirements, type Unknowns } from './documents';
import { renderStack } from './stackModelBridge';
import type { StackOptions } from './composer';

/** The requirements a stack model renders: the document, the secrets its plan needs, and what is still open. */
export interface ModelRequirements {
  document: string;
  secrets: Array<{ name: string; description: string; required: boolean; secret_type: string }>;
  /** Nothing in the stack yet, or a name the catalogue does not hold still waiting for an answer. */
  open: string[];
}

/**
 * Renders the requirements text from the model alone (the panel's controls and a real model's tool calls
 * change the model, never the text): the same document the conversation writes, from the same renderer.
 */
export function requirementsOfModel(model: StackModel, now = new Date(), options: StackOptions = {}): ModelRequirements {
  const stack = renderStack(model, options);
  const unknowns: Unknowns = model.components.length ? {} : { workload: true };
  const open = [
    ...(model.components.length ? [] : ['what the server should run']),
    ...model.unknowns.filter((u) => u.status === 'asked').map((u) => `${u.name} (not in the catalogue: an image for it, an alternative, or skip it)`),
  ];
  return {
    document: renderRequirements(stack, unknowns, now),
    secrets: stack.secrets.map(({ name, description, required, secret_type }) => ({ name, description, required, secret_type })),
    open,
  };
}
