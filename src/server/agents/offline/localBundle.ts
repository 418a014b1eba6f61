/**
 * Where a local repository reaches the sandbox: a git bundle of the analysed branch, written into the
 * project workspace by the server (the sandbox cannot read LOCAL_REPOS_DIR, and no URL serves it).
 */
export const LOCAL_BUNDLE = 'repository.bundle';
