import { countOf } from '../plural';

/**
 * Texts, limits and intervals of sign-in, call conventions, the projects home and the workspace frame
 * (part 1 sections 2, 5, 8, 9 and part 2 sections 2, 8, 9). Written once here; the client and the
 * server import them.
 */

/** Session storage key that holds the installation id, the only sign-in marker the client keeps. */
export const INSTALLATION_ID_KEY = 'installation_id';
/**
 * Storage keys of the analytics ids (analytics calls do nothing): the anonymous user id lives in
 * local storage, the analytics session id in session storage.
 */
export const ANONYMOUS_USER_ID_KEY = 'anonymous_user_id';
export const ANALYTICS_SESSION_ID_KEY = 'analytics_session_id';

export const CALL_ERRORS = {
  noInstallationId: 'No installation ID found',
  noProjectIdInUrl: 'No project ID found in URL',
  invalidProjectId: 'Invalid project ID',
  /** 'HTTP {status}: {statusText or body}' */
  http: (status: number, text: string): string => `HTTP ${status}: ${text}`,
} as const;

export const HOME = {
  title: 'My Projects',
  createButton: 'Create New Project',
  creditsButton: 'View & Add Credits',
  searchPlaceholder: 'Search projects...',
  noDescription: 'No description',
  seeAll: (n: number): string => `See all ${countOf(n, 'project')}`,
  showLess: 'Show less',
  paymentBanner: 'Payment successful! Your credits have been added to your account.',
  initialProjectCount: 6,
} as const;

export const WORKSPACE = {
  loadingProject: 'Loading project....',
  loadingProjectShort: 'Loading project...',
  noStagesAvailable: 'No stages available',
  noStagesConfigured: 'No stages configured',
  noStageSelected: 'No stage selected',
  noAgentConfigured: 'No agent configured for this stage',
  unknownAgentType: 'Unknown agent type',
  viewDetails: 'View Details',
  returnToProjects: 'Return to Projects',
  failedToLoadProjectDetails: 'Failed to load project details',
  failedToLoadProjectData: 'Failed to load project data',
  projectNotFound: 'Project not found',
  invalidProjectIdFull: (id: string): string =>
    `Invalid project ID: ${id}. Please ensure you're viewing a valid project.`,
} as const;

export const PAGES = {
  somethingWentWrong: 'Something went wrong',
  pageNotFound: 'Page Not Found',
  returnToProjects: 'Return to Projects',
} as const;

export const INSTALLATION_ERRORS = {
  title: 'Installation Error',
  noIdInUrl: 'No installation ID found in URL',
  failedToComplete: 'Failed to complete GitHub installation',
  failedToStore: 'Failed to store installation ID correctly',
} as const;

/** Timings of the foundation screens, in milliseconds. */
export const TIMING = {
  paymentBannerMs: 5_000,
  installationErrorRedirectMs: 5_000,
  logoutHiddenPageMs: 1_000,
  /** Ours: the spec says 'Project not found' redirects to / but names no delay; long enough to read it. */
  projectNotFoundRedirectMs: 3_000,
} as const;

/** Product name, used in titles and headers (part 2, legal page titles: 'DevOps Agents - Terms of Service'). */
export const PRODUCT_NAME = 'DevOps Agents';

export const LANDING = {
  tagline: 'Not so autonomous AI to assist you in creating and running your production infra',
  getStarted: 'Get Started',
  pricing: 'Pricing',
} as const;

export const PAGE_TITLES = {
  terms: `${PRODUCT_NAME} - Terms of Service`,
  privacy: `${PRODUCT_NAME} - Privacy Policy`,
  refundPolicy: `${PRODUCT_NAME} - Refund Policy`,
  pricing: `${PRODUCT_NAME} - Pricing Page`,
} as const;

export const PROFILE = {
  signOut: 'Sign Out',
} as const;

/** The local sign-in page (ARCHITECTURE.md, "Sign-in and sessions"); the rule is LOGIN_PATTERN. */
export const SIGN_IN = {
  title: 'Sign in',
  loginLabel: 'Login name',
  submit: 'Sign in',
  invalidLogin: 'A login name is 1 to 39 letters, digits or hyphens.',
} as const;

export const CREATE_PROJECT = {
  title: 'Create New Project',
  nameLabel: 'Project name',
  descriptionLabel: 'Description (optional)',
  submit: 'Create Project',
  submitting: 'Creating...',
  cancel: 'Cancel',
  nameRequired: 'Project name is required',
  nameTooLong: (max: number): string => `Project name must be at most ${max} characters`,
  descriptionTooLong: (max: number): string => `Description must be at most ${max} characters`,
} as const;

/** Browser paths the client sends people to. */
export const PATHS = {
  githubLogin: '/api/github/login',
  providerLogout: '/api/github/provider-logout',
} as const;

/** Polling of the foundation screens, in milliseconds (part 2 section 9: project costs every 10 s). */
export const POLLING = {
  projectCostsMs: 10_000,
} as const;

/** Project cost is shown in dollars with 4 decimals (part 1 section 9). */
export const COST_DECIMALS = 4;

/**
 * Limits the browser checks before it calls. They equal LOGIN_PATTERN in api/auth.ts and
 * PROJECT_NAME_MAX / PROJECT_DESCRIPTION_MAX in api/projects.ts; the client reads them from here
 * because importing a value from an api/ file pulls the TypeBox runtime into the browser bundle.
 */
export const INPUT_LIMITS = {
  loginPattern: '^[A-Za-z0-9-]{1,39}$',
  projectNameMax: 100,
  projectDescriptionMax: 2000,
} as const;
