import { badRequest, notFound } from '../../../errors';
import type { AgentTool } from '../../../agents/turnLoop';
import { TOOL_NAMES } from '../../../agents/toolNames';
import type { RepositoryAnalysis } from '../../../../shared/api/planning';
import { block, type PlanningAgent } from './planningAgent';

export const ANALYZER_TOOLS: AgentTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAMES.analysis,
      description: 'Save the repository analysis.',
      parameters: {
        type: 'object',
        properties: {
          analysis: { type: 'string', description: 'The analysis as markdown' },
          user_questions: {
            type: 'object',
            properties: { reason: { type: 'string' }, questions: { type: 'object', additionalProperties: { type: 'string' } } },
            required: ['reason', 'questions'],
          },
          deployment_plan: {
            type: 'object',
            properties: {
              prerequisites: { type: 'array', items: { type: 'string' } },
              deployment_steps: { type: 'array', items: { type: 'string' } },
              post_deployment: { type: 'array', items: { type: 'string' } },
              scaling_considerations: { type: 'array', items: { type: 'string' } },
            },
            required: ['prerequisites', 'deployment_steps', 'post_deployment', 'scaling_considerations'],
          },
        },
        required: ['analysis', 'user_questions', 'deployment_plan'],
      },
    },
  },
];

/** The Repository Analyzer: describes a repository the server read, and what to ask the person, then saves it. */
export const analyzerAgent: PlanningAgent = {
  name: 'analyzer',
  usageAgent: 'repositoryAnalyzerAgent',
  tools: ANALYZER_TOOLS,
  required: { tool: TOOL_NAMES.analysis, missing: 'no analysis was saved', exists: async ({ documents }, projectId) => Boolean((await documents.analysis(projectId))?.analysis.trim()) },
  instructions: (context) => [
    'Role: analyzer',
    'You analyse a code repository to plan its deployment with Docker Compose. Describe the technology stack, what is needed to run it and what to ask the person, then call save_analysis.',
    block('repository_facts', context.analysis),
  ],
  async runTool({ documents }, projectId, name, args) {
    if (name !== TOOL_NAMES.analysis) throw badRequest(`unknown tool ${name}`);
    const current = await documents.analysis(projectId);
    if (!current) throw notFound('no repository was read for this project');
    const merged: RepositoryAnalysis = {
      ...current,
      analysis: typeof args.analysis === 'string' ? args.analysis : current.analysis,
      user_questions: (args.user_questions as RepositoryAnalysis['user_questions']) ?? current.user_questions,
      deployment_plan: (args.deployment_plan as RepositoryAnalysis['deployment_plan']) ?? current.deployment_plan,
      message: 'Analysis complete',
    };
    await documents.put(projectId, 'analysis', JSON.stringify(merged));
    return 'Saved the analysis.';
  },
};
