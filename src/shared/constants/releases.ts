import type { DriftKind } from '../api/releases';

/** The project home's releases and drift panels (ours: the documents do not have them). */
export const RELEASES_TEXT = {
  title: 'Releases',
  intro: 'Each deploy that completed is a release: its compose and configuration files as they are on the server, and the image digests that ran.',
  none: 'No release yet: a deploy whose every step completed records one.',
  loadError: 'The releases could not be loaded.',
  release: (n: number) => `Release ${n}`,
  status: { live: 'running now', superseded: 'earlier', rolled_back: 'rolled back' } as const,
  rollBack: 'Roll back',
  rollBackTo: (n: number) => `Roll back to release ${n}`,
  confirmTitle: (n: number) => `Roll back to release ${n}?`,
  confirmIntro: (step: number) => `Step ${step} of the execution plan runs this on the server once you approve it; it is logged like every other step.`,
  approve: 'Approve and run',
  reject: 'Cancel',
  running: (n: number) => `Rolling back to release ${n}…`,
  done: (n: number, seconds: number | null) => `Release ${n} is restored and healthy${seconds === null ? '' : `, ${seconds.toFixed(1)} s after the approval`}.`,
  failed: (n: number, error: string) => `The roll back to release ${n} failed: ${error}`,
  rejected: 'The roll back was cancelled; nothing ran.',
} as const;

export const DRIFT_TEXT = {
  title: 'Drift',
  intro: 'Compares the live server with the last release through read-only commands: containers and images, published ports, firewall rules, cron entries and free disk.',
  check: 'Check drift',
  checking: 'Checking…',
  never: 'Not checked yet.',
  lastChecked: (at: string, release: number | null) => `Last checked ${at}${release === null ? '' : ` against release ${release}`}.`,
  clean: 'Nothing differs from the release.',
  commands: 'Commands run on the server',
  loadError: 'The last drift check could not be loaded.',
  kinds: {
    containers: 'Containers',
    images: 'Images',
    ports: 'Published ports',
    firewall: 'Firewall rules',
    cron: 'Cron entries',
    disk: 'Free disk',
  } satisfies Record<DriftKind, string>,
} as const;
