/**
 * Every app-only slice and every RTK Query endpoint, registered at once. The app normally loads each
 * with the chunk that uses it (browser budget), so a Redux DevTools log recorded in a long session
 * cannot be replayed into a freshly loaded page: RTK Query's reducer throws on the actions of an
 * endpoint whose chunk has not loaded, and a slice not yet injected (credits) is missing from the
 * replayed state. `index.tsx` loads this module only when the DevTools extension is there; it holds
 * reducers and endpoint definitions, no screens and no sagas.
 */
import '../features/activity/activityApi';
import '../common/auth/authApi';
import '../common/auth/authSlice';
import '../common/chat/chatApi';
import '../common/chat/chatSlice';
import '../common/costs/costsApi';
import '../features/credits/creditsApi';
import '../features/credits/creditsSlice';
import '../features/devopsHelper/devopsHelperApi';
import '../features/devopsHelper/devopsHelperSlice';
import '../common/documentation/documentationApi';
import '../features/execution/executionApi';
import '../features/execution/executionSlice';
import '../features/marketing/publicConfigApi';
import '../features/projectHome/backupsApi';
import '../features/projectHome/notificationsApi';
import '../features/projectHome/releasesApi';
import '../features/planning/planningApi';
import '../features/planning/planningSlice';
import '../features/planning/serverInspectionApi';
import '../features/planning/stackApi';
import '../common/projects/projectsApi';
import '../common/sandbox/sandboxApi';
import '../common/sandbox/sandboxControlApi';
import '../common/sandbox/sandboxSlice';
import '../common/stages/stagesApi';
import '../common/stages/stageStartsApi';
import '../features/validation/validationApi';
import '../features/validation/validationSlice';
