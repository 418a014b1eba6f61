import { RECORDED_ACTIVITY_TYPES } from '../../../shared/constants/activity';
import type { NotificationEvent } from '../../../shared/api/notifications';
import type { ActivityService } from '../activity/activityService';
import type { Notice } from './notificationService';

/** The activities that reach a person, and what the notice says: data, one row per kind of failure. */
const NOTICES: Record<string, { event: NotificationEvent; title: string; what: string }> = {
  [RECORDED_ACTIVITY_TYPES.deploymentFailed]: { event: 'execution_failed', title: 'A deployment step failed', what: 'Deployment step' },
  [RECORDED_ACTIVITY_TYPES.validationFailed]: { event: 'validation_failed', title: 'A validation check failed', what: 'Validation check' },
};

/** The notice an activity warrants, if any. */
export function noticeOf(activityType: string, data: Record<string, unknown> = {}): Notice | undefined {
  const kind = NOTICES[activityType];
  if (!kind) return undefined;
  const step = typeof data.step_number === 'number' ? ` ${data.step_number}` : '';
  const error = typeof data.error_message === 'string' && data.error_message ? `: ${data.error_message}` : '.';
  return { event: kind.event, projectName: typeof data.project_name === 'string' ? data.project_name : 'Project', title: kind.title, detail: `${kind.what}${step} failed${error}` };
}

/**
 * The activity service, sending a notice for each failure it records — after the record, off the
 * request's path (a slow SMTP server never holds a step's transaction).
 */
export function withNotices(activity: ActivityService, notify: (projectId: number, notice: Notice) => Promise<void>): ActivityService {
  return {
    ...activity,
    async record(entry, writer) {
      await activity.record(entry, writer);
      const notice = entry.projectId ? noticeOf(entry.activityType, entry.data) : undefined;
      if (notice && entry.projectId) setImmediate(() => void notify(entry.projectId!, notice));
    },
  };
}
