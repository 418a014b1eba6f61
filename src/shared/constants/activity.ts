/** The activity overview and the home timeline (part 1 sections 2, 3, 9; part 2 sections 2, 4, 7, 8, 9). */

/** Activity types; any other value is shown as unknown. */
export const ACTIVITY_TYPES = {
  projectWorkflowCompleted: 'PROJECT_WORKFLOW_COMPLETED',
} as const;

/** Categories an activity is shown under; validations are labelled 'Analysis'. */
export const ACTIVITY_CATEGORIES = {
  projects: 'Projects',
  deployments: 'Deployments',
  validations: 'Analysis',
  other: 'Other',
} as const;
export type ActivityCategory = keyof typeof ACTIVITY_CATEGORIES;

export const ACTIVITY = {
  gridDays: 365,
  gridMonths: 12,
  dayLabels: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
  legendLess: 'Less',
  legendMore: 'More',
  /** Levels 0 (none) to 4 (four or more activities in a day). */
  maxLevel: 4,
  timelineDefaultLimit: 50,
  timelineDefaultOffset: 0,
  timelineMaxLimit: 200,
  timelineDefaultFilter: 'all',
  /** The projects home shows up to this many timeline items ... */
  homeTimelineMax: 20,
  /** ... with details cut to this many characters. */
  detailsMaxChars: 100,
  /** Relative times are used under this many days, then a date. */
  relativeTimeMaxDays: 30,
  loadError: 'Failed to load activity data',
  unknownType: 'Unknown activity',
} as const;

/** Colour level of a day: 0 none, 1, 2, 3, and 4 for four or more. */
export const activityLevel = (count: number): 0 | 1 | 2 | 3 | 4 => {
  if (count <= 0) return 0;
  if (count >= ACTIVITY.maxLevel) return 4;
  return Math.floor(count) as 1 | 2 | 3;
};

/** Timeline time: 'just now', 'Nm ago', 'Nh ago', 'Nd ago' under 30 days, then a date. */
export const relativeTime = (iso: string, now: Date = new Date()): string => {
  const at = new Date(iso);
  const minutes = Math.floor((now.getTime() - at.getTime()) / 60_000);
  if (Number.isNaN(minutes)) return '';
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ago`;
  const days = Math.floor(hours / 24);
  if (days < ACTIVITY.relativeTimeMaxDays) return `${days}d ago`;
  return at.toLocaleDateString();
};

/** Details cut to 100 characters, with an ellipsis when cut. */
export const truncateDetails = (text: string): string =>
  text.length > ACTIVITY.detailsMaxChars ? `${text.slice(0, ACTIVITY.detailsMaxChars)}...` : text;

/**
 * The types the server records. Only PROJECT_WORKFLOW_COMPLETED is a known type for display (the
 * others are shown as unknown, as the documents say); their prefix decides the category.
 */
export const RECORDED_ACTIVITY_TYPES = {
  projectCreated: 'PROJECT_CREATED',
  stageCompleted: 'PROJECT_STAGE_COMPLETED',
  workflowCompleted: ACTIVITY_TYPES.projectWorkflowCompleted,
  deploymentCompleted: 'DEPLOYMENT_COMPLETED',
  deploymentFailed: 'DEPLOYMENT_FAILED',
  validationCompleted: 'VALIDATION_COMPLETED',
  validationFailed: 'VALIDATION_FAILED',
} as const;

/** The category an activity is shown under: by its type's prefix (PROJECT_, DEPLOYMENT_, VALIDATION_). */
export const activityCategory = (activityType: string): ActivityCategory => {
  if (activityType.startsWith('PROJECT_')) return 'projects';
  if (activityType.startsWith('DEPLOYMENT_')) return 'deployments';
  if (activityType.startsWith('VALIDATION_')) return 'validations';
  return 'other';
};

/** Longest requirements summary kept in a PROJECT_WORKFLOW_COMPLETED activity, in characters. */
export const REQUIREMENTS_SUMMARY_MAX_CHARS = 500;

/** Texts of the activity overview (ours where the documents name none). */
export const ACTIVITY_TEXT = {
  title: 'Recent Activity',
  loading: 'Loading activity...',
  empty: 'No activity yet.',
  filterLabel: 'Show',
  filterAll: 'All',
  totalActivities: 'Total activities',
  currentStreak: 'Current streak',
  streakDays: (n: number): string => `${n} ${n === 1 ? 'day' : 'days'}`,
  /** Tooltip of a heatmap day. */
  dayTooltip: (count: number, date: string): string => `${count} ${count === 1 ? 'activity' : 'activities'} on ${date}`,
  /**
   * Labels of every type the server records (issue 13: the documents knew only the workflow one, so the
   * timeline was mostly 'Unknown activity'); a type not here is really unknown.
   */
  typeLabels: {
    [ACTIVITY_TYPES.projectWorkflowCompleted]: 'Project workflow completed',
    PROJECT_CREATED: 'Project created',
    PROJECT_STAGE_COMPLETED: 'Stage completed',
    DEPLOYMENT_COMPLETED: 'All execution steps completed',
    DEPLOYMENT_FAILED: 'Execution step failed',
    VALIDATION_COMPLETED: 'All validation checks passed',
    VALIDATION_FAILED: 'Validation check failed',
  } as Record<string, string>,
} as const;
