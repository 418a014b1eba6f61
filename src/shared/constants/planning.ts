import { countOf } from '../plural';

/**
 * The requirements, architecture and implementation stages, repository analysis, user secrets and the
 * stage flow (part 1 sections 2, 3, 4, 5, 8, 9).
 */

/** Index of each stage in the project state's stage list (ARCHITECTURE.md stage order). */
export const STAGE_INDEX = {
  requirements: 0,
  architecture: 1,
  implementation: 2,
  execution: 3,
  validation: 4,
} as const;

export const PLANNING_TIMING = {
  /** Requirements, analysis, secrets and both plans are polled this often while shown, in ms. */
  dataPollMs: 5_000,
} as const;

/** Fixed messages sent by the confirm buttons. */
export const PLANNING_PROMPTS = {
  generateArchitecturePlan: 'Generate architecture plan',
  generateImplementationPlan: 'Generate implementation plan',
  /** Sent to the requirements gatherer when a repository analysis completes. */
  afterAnalysis: '',
} as const;

export const REQUIREMENTS_TEXT = {
  chatTitle: 'Requirements Gatherer',
  panelTitle: 'Collected Requirements',
  placeholderRows: ['Stack Type', 'Container Services', 'Volume Configuration', 'Network Configuration'],
  tabs: {
    current: 'Current Requirements',
    analysis: 'Repository Analysis',
    secrets: 'User Secrets',
  },
} as const;

/** The requirements document's section titles, by what they hold (written once: the planner writes them, the app and the agents read them). */
export const REQUIREMENTS_SECTION = {
  summary: 'Summary',
  requiredStack: 'Required Stack',
  configuration: 'Configuration Requirements',
  integrations: 'Service Integrations',
  scale: 'Scale & Resource Requirements',
  cloud: 'Cloud Specifications',
  userDetails: 'Required User Details',
} as const;

/** The requirements document: its section titles in order, and where parsing stops. */
export const REQUIREMENTS_DOCUMENT = {
  sections: [
    REQUIREMENTS_SECTION.summary,
    REQUIREMENTS_SECTION.requiredStack,
    REQUIREMENTS_SECTION.configuration,
    REQUIREMENTS_SECTION.integrations,
    REQUIREMENTS_SECTION.scale,
    REQUIREMENTS_SECTION.cloud,
    REQUIREMENTS_SECTION.userDetails,
  ],
  cloudSpecificationFields: ['Provider', 'Compute', 'Storage', 'Networking', 'Region'],
  generatedOnPrefix: 'Generated on',
  stopLine: 'User Secrets Configuration:',
} as const;

export const ARCHITECTURE_TEXT = {
  viewTitle: 'Cloud Architecture Plan',
  chatTitle: 'Cloud Architecture Assistant',
  loadError: 'Error loading architecture plan',
} as const;

export const IMPLEMENTATION_TEXT = {
  viewTitle: 'Implementation Plan',
  loadError: 'Error loading implementation plan',
  /** Ours: the plan was made before the architecture last changed. */
  outdated: 'The architecture changed after this plan was made, so it no longer matches it. Generate the plan again before confirming it.',
  regenerate: 'Regenerate implementation plan',
  outdatedHint: 'Regenerate the plan first: the architecture changed after it was made',
} as const;

export const PLANNING_ERRORS = {
  gatheringAfterAnalysis: 'Sorry, I encountered an error while gathering requirements. Please try again.',
  /** 'Failed to start requirements gathering: {message}. Please try again.' */
  gatheringStart: (message: string): string =>
    `Failed to start requirements gathering: ${message}. Please try again.`,
  /** 'Repository analysis failed: {message}. Please try again.' */
  analysis: (message: string): string => `Repository analysis failed: ${message}. Please try again.`,
} as const;

/** The analysis answer's message when a project has no analysis. */
export const NO_ANALYSIS_MESSAGE = 'No analysis found for this project';

export const REPOSITORY_PICKER = {
  title: 'Select a repository',
  searchPlaceholder: 'Find a repository...',
  /** Default branch preference, then the first branch. */
  preferredBranches: ['main', 'master'],
  /** The single branch offered when the branch fetch fails. */
  fallbackBranch: 'main',
} as const;

export const REPOSITORY_ERRORS = {
  noRepositories: 'No repositories found.',
  grantAccess: 'You may need to grant repository access to the GitHub app.',
  fetchPrefix: "Sorry, I couldn't fetch your repositories.",
  notLoggedIn: "Please make sure you're logged in to GitHub.",
  unauthorized: 'Authentication failed. Please try logging in again.',
  forbidden: 'Access denied. Please check your GitHub app permissions.',
  notFound: 'Repository endpoint not found. Please check the server configuration.',
  /** 'Error: {message}' */
  other: (message: string): string => `Error: ${message}`,
} as const;

export const ENVIRONMENT_DIALOG = {
  title: 'Environment Variables (Optional)',
  /** Configs are renamed environment1..n before analysis. */
  namePrefix: 'environment',
  /** 'Environment configuration {n}', used for an empty description. */
  defaultDescription: (n: number): string => `Environment configuration ${n}`,
  maxBlocks: 20,
} as const;

/** `environment{n}` for the n-th (1-based) kept environment block. */
export const environmentConfigName = (n: number): string => `${ENVIRONMENT_DIALOG.namePrefix}${n}`;

export const USER_SECRETS = {
  /** A secret of this secret_type gets a masked input. */
  passwordType: 'password',
  /** A private SSH key: masked, multi-line, checked to be an unencrypted OpenSSH/PEM key when saved. */
  sshPrivateKeyType: 'ssh_private_key',
  /** Auto-generated, never editable by the user. */
  autoGeneratedName: 'GITHUB_TOKEN',
  /** Repository-scoped permissions of the auto-generated token, limited to the one repository. */
  autoGeneratedPermissions: {
    contents: 'read',
    metadata: 'read',
    actions: 'write',
    secrets: 'write',
    actions_variables: 'write',
    workflows: 'write',
  },
  /** Longest secret value accepted, in characters. */
  maxValueLength: 16_384,
} as const;

export const SECRET_MESSAGES = {
  noChanges: 'No changes to save',
  /** 'Successfully saved {n} secret(s)!' */
  saved: (n: number): string => `Successfully saved ${n} secret(s)!`,
  /** 'Saved {n} secrets, {m} failed' */
  partiallySaved: (saved: number, failed: number): string => `Saved ${countOf(saved, 'secret')}, ${failed} failed`,
  failed: 'Failed to save secrets. Please try again.',
} as const;

