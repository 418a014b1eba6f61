/** Whether an error is a write that failed for want of disk space: asked by every layer (agents, services, plugins). */

/**
 * Error codes of a full disk: the file system's (ENOSPC), a user's quota (EDQUOT), and PostgreSQL's
 * `disk_full` class (53100) when its own disk fills.
 */
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', '53100']);
/** The same, as programs write it on stderr (git, tar, PGlite's PostgreSQL, a shell's redirection). */
const DISK_FULL_TEXT = /\b(ENOSPC|EDQUOT)\b|No space left on device|Disk quota exceeded|could not extend file/i;

/** True when `err` (or what caused it) is a write that failed for want of disk space. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e === 'string') return DISK_FULL_TEXT.test(e);
    if (typeof e !== 'object') return false;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
    if (typeof message === 'string' && DISK_FULL_TEXT.test(message)) return true;
  }
  return false;
}
