import { Type, type Static } from 'typebox';
import { ENVIRONMENT_DIALOG, NO_ANALYSIS_MESSAGE, USER_SECRETS } from '../constants/planning';
import { ChatThreadResponse, MessageBody } from './common';
import { Repository } from './repositories';

/**
 * The planning stages: requirements, repository analysis, user secrets, architecture and implementation
 * plans. The project is the one named by the Project-Id header. The four stream calls answer
 * `text/event-stream` with `StreamEvent` frames (see events.ts); their bodies are closed to extra fields.
 */

/** Body of an agent chat turn, `{ message, thread_id? }`, closed to extra fields. */
export const AgentMessageBody = Type.Object({ ...MessageBody.properties }, { additionalProperties: false });
export type AgentMessageBody = Static<typeof AgentMessageBody>;

/** POST /api/planning/requirements-gatherer (SSE). An empty message continues after an analysis. */
export const RequirementsGathererBody = AgentMessageBody;
export type RequirementsGathererBody = Static<typeof RequirementsGathererBody>;

/** POST /api/planning/cloud-architect (SSE); the confirm flow sends 'Generate architecture plan'. */
export const CloudArchitectBody = AgentMessageBody;
export type CloudArchitectBody = Static<typeof CloudArchitectBody>;

/** POST /api/planning/implementation-planner (SSE); the confirm flow sends 'Generate implementation plan'. */
export const ImplementationPlannerBody = AgentMessageBody;
export type ImplementationPlannerBody = Static<typeof ImplementationPlannerBody>;

/** One environment block of the analyzer body, renamed environment1..n by the client. */
export const EnvironmentConfig = Type.Object(
  {
    name: Type.String({ pattern: `^${ENVIRONMENT_DIALOG.namePrefix}[1-9][0-9]?$` }),
    description: Type.String({ maxLength: 1_000 }),
    /** Environment variable text (KEY=value lines). */
    content: Type.String({ maxLength: 65_536 }),
  },
  { additionalProperties: false },
);
export type EnvironmentConfig = Static<typeof EnvironmentConfig>;

/**
 * POST /api/planning/analyzer (SSE): analyse a repository on a branch, with optional environment blocks.
 * None at all is fine: the app drops blank blocks (part 1 section 5), and a repository needs no
 * environment data to be analysed.
 */
export const AnalyzerBody = Type.Object(
  {
    repository_data: Repository,
    environment_configs: Type.Array(EnvironmentConfig, { maxItems: ENVIRONMENT_DIALOG.maxBlocks }),
    branch: Type.String({ minLength: 1, maxLength: 255 }),
  },
  { additionalProperties: false },
);
export type AnalyzerBody = Static<typeof AnalyzerBody>;

/**
 * Answer of POST /api/planning/requirements-gatherer/kill and POST /api/devops-helper/kill:
 * `stopped` when a generation was cancelled, `idle` when none was running (not an error).
 */
export const KillResponse = Type.Object({ status: Type.Enum(['stopped', 'idle']) });
export type KillResponse = Static<typeof KillResponse>;

/** GET /api/planning/requirements: the requirements document text ('' while none) and the agent's go-ahead. */
export const RequirementsResponse = Type.Object({
  content: Type.String(),
  ready_to_continue: Type.Boolean(),
});
export type RequirementsResponse = Static<typeof RequirementsResponse>;

/** The analysed repository, as summarised in a `RepositoryAnalysis`. */
export const AnalysedRepository = Type.Object({
  full_name: Type.String(),
  language: Type.Union([Type.String(), Type.Null()]),
  default_branch: Type.String(),
  private: Type.Boolean(),
  description: Type.Union([Type.String(), Type.Null()]),
});
export type AnalysedRepository = Static<typeof AnalysedRepository>;

/** A repository analysis (part 1 section 3 'Repository analysis'). */
export const RepositoryAnalysis = Type.Object({
  repository: AnalysedRepository,
  repo_analysis: Type.Object({
    /** e.g. { "language": "TypeScript", "framework": "Express", "database": ["PostgreSQL"] } */
    technology_stack: Type.Record(Type.String(), Type.Unknown()),
  }),
  environment: Type.Object({
    /** Summary of the environment blocks sent with the analysis; null when none had content. */
    env_content_summary: Type.Union([Type.String(), Type.Null()]),
  }),
  user_questions: Type.Object({
    reason: Type.String(),
    /** Question text to answer text ('' while unanswered). */
    questions: Type.Record(Type.String(), Type.String()),
  }),
  deployment_plan: Type.Object({
    prerequisites: Type.Array(Type.String()),
    deployment_steps: Type.Array(Type.String()),
    post_deployment: Type.Array(Type.String()),
    scaling_considerations: Type.Array(Type.String()),
  }),
  /** The analysis as markdown text. */
  analysis: Type.String(),
  message: Type.String(),
});
export type RepositoryAnalysis = Static<typeof RepositoryAnalysis>;

/** The answer of GET /api/planning/analysis when the project has no analysis (status 200, not 404). */
export const NoAnalysisResponse = Type.Object({ message: Type.Literal(NO_ANALYSIS_MESSAGE) });
export type NoAnalysisResponse = Static<typeof NoAnalysisResponse>;

/**
 * GET /api/planning/analysis: an analysis, or `{ message: 'No analysis found for this project' }`.
 * `RepositoryAnalysis` comes first so that a serialiser picking the first matching branch keeps every field.
 */
export const AnalysisResponse = Type.Union([RepositoryAnalysis, NoAnalysisResponse]);
export type AnalysisResponse = Static<typeof AnalysisResponse>;

/** True when an analysis answer holds an analysis. */
export const hasAnalysis = (answer: AnalysisResponse): answer is RepositoryAnalysis => 'repository' in answer;

/** `password` and `ssh_private_key` secrets get a masked input; a private key is checked when saved. */
export const SECRET_TYPES = ['password', 'text', 'ssh_private_key'] as const;
export const SecretType = Type.Enum(SECRET_TYPES);
export type SecretType = Static<typeof SecretType>;
/** A stored or declared type read back; anything unknown is a password (masked). */
export const toSecretType = (value: unknown): SecretType => (SECRET_TYPES as readonly unknown[]).includes(value) ? (value as SecretType) : 'password';

/** A secret the plans need. Values never leave the server: `provided` says whether one is stored. */
export const UserSecret = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
  provided: Type.Boolean(),
  secret_type: SecretType,
});
export type UserSecret = Static<typeof UserSecret>;

/** GET /api/planning/requirements/user-secrets */
export const UserSecretsResponse = Type.Object({ secrets: Type.Array(UserSecret) });
export type UserSecretsResponse = Static<typeof UserSecretsResponse>;

/**
 * POST /api/planning/requirements/user-secrets: store one secret (encrypted). `name` is an environment
 * variable name; `value` must hold a non-blank character. Saving GITHUB_TOKEN answers 400 (it is
 * auto-generated); a name the requirements do not list answers 404.
 */
export const SaveUserSecretBody = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' }),
    value: Type.String({ minLength: 1, maxLength: USER_SECRETS.maxValueLength, pattern: '\\S' }),
  },
  { additionalProperties: false },
);
export type SaveUserSecretBody = Static<typeof SaveUserSecretBody>;

export const UserSecretStatus = Type.Object({
  name: Type.String(),
  description: Type.String(),
  required: Type.Boolean(),
  provided: Type.Boolean(),
});
export type UserSecretStatus = Static<typeof UserSecretStatus>;

/** Answer of POST /api/planning/requirements/user-secrets: every secret's status after the save. */
export const SaveUserSecretResponse = Type.Object({ secrets_status: Type.Array(UserSecretStatus) });
export type SaveUserSecretResponse = Static<typeof SaveUserSecretResponse>;

/**
 * One thing the plan verifier found in a plan (agents/verifier): an `error` blocks the plan's confirm
 * (the server answers 409 naming it), a `warning` is shown beside the plan. `where` names the file,
 * service or step it is in.
 */
export const PlanFinding = Type.Object({
  severity: Type.Enum(['error', 'warning']),
  code: Type.String(),
  message: Type.String(),
  where: Type.String(),
});
export type PlanFinding = Static<typeof PlanFinding>;

/**
 * GET /api/planning/architecture-plan and GET /api/planning/implementation-plan: JSON `{ "plan": "..." }`
 * where `plan` is the plan as markdown text, '' while no plan exists yet (never 404, since it is polled).
 * Ours: `findings`, what the verifier found when the plan was saved (absent for a plan saved before it ran).
 */
export const PlanResponse = Type.Object({ plan: Type.String(), findings: Type.Optional(Type.Array(PlanFinding)) });
export type PlanResponse = Static<typeof PlanResponse>;

/** GET /api/planning/architecture-plan */
export const ArchitecturePlanResponse = PlanResponse;
export type ArchitecturePlanResponse = PlanResponse;

/**
 * GET /api/planning/implementation-plan. Ours: `outdated` is true when the architecture plan was saved
 * after this plan, which then has to be generated again before it can be confirmed.
 */
export const ImplementationPlanResponse = Type.Object({ plan: Type.String(), outdated: Type.Optional(Type.Boolean()), findings: Type.Optional(Type.Array(PlanFinding)) });
export type ImplementationPlanResponse = Static<typeof ImplementationPlanResponse>;

/** The planning agents whose conversation can be read back: GET /api/planning/threads/{agent}. */
export const PLANNING_AGENTS = ['requirements', 'analyzer', 'architect', 'implementation'] as const;
export const PlanningThreadParams = Type.Object({ agent: Type.Enum([...PLANNING_AGENTS]) });
export type PlanningThreadParams = Static<typeof PlanningThreadParams>;

/**
 * GET /api/planning/threads/{agent}: the agent's latest conversation in the project (`thread_id` null
 * while there is none) and the model that answers it, so a reloaded chat shows the thread again.
 */
export const PlanningThreadResponse = ChatThreadResponse;
export type PlanningThreadResponse = ChatThreadResponse;
