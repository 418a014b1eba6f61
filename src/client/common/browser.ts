/**
 * Full-page navigations that leave the React app (sign-in at the provider, the reset to / after a
 * 401 or a sign-out). Kept behind one object so that tests can observe them: jsdom cannot navigate.
 */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
};
