/**
 * Full-page navigations that leave the React app (sign-in at the provider, the reset to / after a
 * 401 or a sign-out) and file downloads. Kept behind one object so that tests can observe them: jsdom
 * can neither navigate nor save files.
 */
export const browser = {
  assign(url: string): void {
    window.location.assign(url);
  },
  /** Saves a blob as a file named `name` through a temporary object URL. */
  saveFile(blob: Blob, name: string): void {
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.style.display = 'none';
    document.body.append(link);
    link.click();
    link.remove();
    // Revoked on the next turn: Chromium starts the download from the click before it reads the URL.
    window.setTimeout(() => URL.revokeObjectURL(url), 0);
  },
};
