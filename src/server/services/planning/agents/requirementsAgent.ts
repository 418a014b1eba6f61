import { badRequest } from '../../../errors';
import type { AgentTool } from '../../../agents/turnLoop';
import { TOOL_NAMES } from '../../../agents/toolNames';
import { REQUIREMENTS_DOCUMENT, REQUIREMENTS_SECTION } from '../../../../shared/constants/planning';
import { SECRET_TYPES } from '../../../../shared/api/planning';
import { isRequirementsComplete } from '../../../../shared/requirementsDocument';
import { STACK_EDITS_TAG, STACK_MODEL_TAG } from '../../../agents/offline/panelEdits';
import { isStackOpTool, runStackOpTool, STACK_OP_AGENT_TOOLS, STACK_OP_INSTRUCTION } from './stackOpTools';
import { block, type PlanningAgent } from './planningAgent';

const SECRET_ITEM = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$', description: 'Environment variable name' },
    description: { type: 'string' },
    required: { type: 'boolean' },
    secret_type: { type: 'string', enum: [...SECRET_TYPES], description: 'ssh_private_key for a private SSH key (the person\'s own server); password for other secret values; text for non-secret details' },
  },
  required: ['name', 'description', 'required', 'secret_type'],
};

/** The section titles as the tool describes them: `Cloud Specifications with Provider/…/Region lines`. */
const REQUIREMENT_SECTIONS = REQUIREMENTS_DOCUMENT.sections
  .map((section) => (section === REQUIREMENTS_SECTION.cloud ? `${section} with ${REQUIREMENTS_DOCUMENT.cloudSpecificationFields.join('/')} lines` : section))
  .join(', ');

/** Its one tool, in the OpenAI function format every provider accepts through LangChain. */
export const REQUIREMENTS_TOOLS: AgentTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAMES.requirements,
      description:
        `Save the whole requirements document (sections ${REQUIREMENT_SECTIONS}, a "${REQUIREMENTS_DOCUMENT.generatedOnPrefix}: <ISO date>" line, then "${REQUIREMENTS_DOCUMENT.stopLine}"), the secrets the plan needs (never their values) and whether the requirements are complete.`,
      parameters: {
        type: 'object',
        properties: {
          document: { type: 'string' },
          secrets: { type: 'array', items: SECRET_ITEM },
          ready_to_continue: { type: 'boolean' },
          analysis_answers: {
            type: 'object',
            description: "The person's answers to the repository analysis's questions, keyed by each question exactly as the analysis asks it.",
            additionalProperties: { type: 'string' },
          },
        },
        required: ['document', 'secrets', 'ready_to_continue'],
      },
    },
  },
];

/**
 * The Requirements Gatherer: asks what the requirements document needs and saves the whole document, with
 * the secrets the plan needs, after every answer. A turn may only ask, so no save is required of it.
 */
export const requirementsAgent: PlanningAgent = {
  name: 'requirements',
  usageAgent: 'requirementsAgent',
  tools: [...REQUIREMENTS_TOOLS, ...STACK_OP_AGENT_TOOLS],
  instructions: (context) => [
    'Role: requirements',
    'You are a senior DevOps engineer gathering the requirements to deploy a docker-compose stack. Ask only what the requirements document needs (workload, where it runs, region, domain and TLS, load and data size), a few questions at a time. After every answer call update_requirements with the whole document, the secrets the plan needs and ready_to_continue (true only when every section has substance). Reply briefly in the chat; the document is shown beside it.',
    "When the person answers one of the repository analysis's questions (user_questions), pass the answer in analysis_answers under the question exactly as asked.",
    'When the person deploys to their own server ("my existing server deploy@203.0.113.7, SSH port 2222"), write the target as "Provider: Your existing server user@host, SSH port N" in Cloud Specifications, and declare SSH_PRIVATE_KEY with secret_type ssh_private_key (never ask for the key in the chat). A plan that creates a server at a provider reaches it the same way: over SSH with a key.',
    block('requirements_document', context.requirements),
    block('repository_analysis', context.analysis),
    block(STACK_EDITS_TAG, context.stackEdits),
    STACK_OP_INSTRUCTION,
    block(STACK_MODEL_TAG, context.stackModel),
  ],
  async runTool(workspace, projectId, name, args) {
    if (isStackOpTool(name)) return runStackOpTool(workspace, projectId, name, args);
    const { documents, stackEditing, saveRequirements } = workspace;
    if (name !== TOOL_NAMES.requirements) throw badRequest(`unknown tool ${name}`);
    if (typeof args.document !== 'string' || !args.document.trim()) throw badRequest('document must be the whole requirements text');
    await saveRequirements(projectId, { document: args.document, secrets: args.secrets, ready: args.ready_to_continue === true });
    // A document written whole without its model leaves the kept model behind (stale) until the next render.
    await stackEditing.keepModel(projectId, args.stack_model, args.words_read);
    await documents.recordAnalysisAnswers(projectId, args.analysis_answers);
    const complete = isRequirementsComplete(args.document);
    return `Saved the requirements document (${complete ? 'every section has substance' : 'some sections are still open'}).`;
  },
};
