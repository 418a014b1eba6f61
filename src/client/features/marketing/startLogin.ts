import { PATHS } from '../../../shared/constants';
import { browser } from '../../common/browser';
import { clearInstallationId } from '../../common/session';
import { track } from '../../common/analytics';

/** The login action (part 2 section 2): forget any stored id, then the provider's login endpoint. */
export function startLogin(source: string): void {
  track('login_click', { source });
  clearInstallationId();
  browser.assign(PATHS.githubLogin);
}
