import type { Db } from '../../db/client';
import type { ModelProvider } from '../../agents/models';
import { VALIDATION_TOOLS } from '../../agents/toolNames';
import { DOCUMENTATION } from '../../../shared/constants/documentation';
import { createTurnSession, NO_STATE, type TurnMeter } from '../../agents/turnSession';
import type { DocumentationService } from './documentationService';

/** Documentation is written by the validation stage's agent (ARCHITECTURE.md stage agents). */
export const DOCUMENTATION_AGENT_ID = 'validationAgent';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: VALIDATION_TOOLS.saveDocumentation,
      description:
        'Save the project documentation: `documentation`, a full markdown documentation of the infrastructure (overview, requirements, architecture, what was executed, validation, configuration, operations), and `quickstart`, a short markdown quick start guide. Never include secret values.',
      parameters: {
        type: 'object',
        properties: { documentation: { type: 'string' }, quickstart: { type: 'string' } },
        required: ['documentation', 'quickstart'],
      },
    },
  },
];

export interface DocumentationAgentDeps {
  db: Db;
  models: ModelProvider;
  documentation: Pick<DocumentationService, 'sources' | 'save' | 'begin' | 'end' | 'written'>;
  secretValues(projectId: number): Promise<Record<string, string>>;
  meter: TurnMeter;
}

/**
 * The documentation writer, on the one turn session (agents/turnSession.ts): its system prompt carries the project's requirements,
 * architecture, implementation plan, executed and validation steps and non-secret facts; its tool
 * stores the documentation and quick start with those facts as `key_value_data`. The documentation is
 * `generating` for the length of a turn.
 */
export function createDocumentationAgent(deps: DocumentationAgentDeps) {
  const { documentation } = deps;
  return createTurnSession({
    db: deps.db,
    model: () => deps.models.forAgent('implementation'),
    prepare: NO_STATE,
    usageAgent: DOCUMENTATION_AGENT_ID,
    threadAgent: 'documentation',
    tools: TOOLS,
    defaultMessage: DOCUMENTATION.generatePrompt,
    required: { tool: VALIDATION_TOOLS.saveDocumentation, missing: 'no documentation was saved', exists: ({ projectId }) => documentation.written(projectId) },
    hiddenValues: deps.secretValues,
    meter: deps.meter,
    onTurn: ({ projectId }, phase) => (phase === 'started' ? documentation.begin(projectId) : documentation.end(projectId)),
    async systemPrompt({ project }) {
      const sources = await documentation.sources(project);
      return [
        'Role: documentation',
        `You write the documentation of a deployed infrastructure from the context below: a full documentation and a quick start guide, both in markdown, saved with save_documentation. Use only the facts given; never include secret values. What the server has and runs is in \`server\` (read back from it after the deploy): state the operating system, versions, sizes, SSH settings, firewall and TLS only as it says or as a step that ran did; a sentence claiming more is left out when the documents are read. Do not copy configuration files: write the line ${DOCUMENTATION.serverMarker} where the files as deployed belong, and the server puts what it read back there. Do not state validation results yourself: write the line ${DOCUMENTATION.resultsMarker} where they belong, and the server puts the latest results of every check there, with their times, whenever the documents are read.`,
        `<documentation_context>\n${JSON.stringify(sources)}\n</documentation_context>`,
      ].join('\n\n');
    },
    async runTool({ project }, { name, args }) {
      if (name === VALIDATION_TOOLS.saveDocumentation && typeof args.documentation === 'string' && typeof args.quickstart === 'string') {
        const { keyValueData } = await documentation.sources(project);
        await documentation.save(project, { documentation: args.documentation, quickstart: args.quickstart }, keyValueData);
        return 'Documentation and quick start guide saved.';
      }
      return `Error: bad call of ${name}`;
    },
  });
}
