/**
 * How a repository is built and run, as the plan needs it: the compose file it deploys with (the
 * authors' production way when there is one), its Dockerfiles, and why that one was chosen. Stored with
 * the analysis as `layout`; only repository files, never the person's environment values.
 */
export interface RepositoryLayout {
  /**
   * The compose document to deploy with and where it comes from: a compose file of the repository, a
   * compose block of its installation docs (`docs/install.md (block 1)`), or one assembled from its
   * published image and the backing services of its development compose.
   */
  compose?: {
    path: string;
    text: string;
    /** The folder its relative paths are relative to; the folder of `path` when absent. */
    dir?: string;
    /** Why this one, in words (shown in the plan). */
    reasons?: string[];
  };
  /** Dockerfiles that build something to run (tests and tooling left out): the folder they build from and what they EXPOSE. */
  dockerfiles: Array<{ path: string; context: string; ports: number[] }>;
  /** Every way the repository shows to run it, classified (the chosen one among them). */
  candidates?: Array<{ source: string; kind: 'production' | 'development'; reasons: string[] }>;
  /** Image repositories the authors publish from their release workflows. */
  publishedImages?: string[];
  /** Texts of the env files the chosen compose reads (`env_file`), by their path in the repository. */
  envFiles?: Record<string, string>;
}

/**
 * Where a local repository reaches the sandbox: a git bundle of the analysed branch, written into the
 * project workspace by the server (the sandbox cannot read LOCAL_REPOS_DIR, and no URL serves it); the
 * plan's fetch step clones it.
 */
export const LOCAL_BUNDLE = 'repository.bundle';
