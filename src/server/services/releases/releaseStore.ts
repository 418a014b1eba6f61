import { and, desc, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { releases } from '../../db/schema';
import type { ReleaseBaseline, LiveState } from './drift';
import { firewallLines, parseDf, parseInspect, ruleLines, serverChecks } from './serverChecks';

/** Runs one read-only command on the project's server and returns its output (a step runner or SSH). */
export type RunOnServer = (command: string, title: string) => Promise<string>;

/** Every check of the live server, each through `run` so the person sees the command and its output. */
export async function readLiveState(run: RunOnServer, project: string, directory: string): Promise<LiveState> {
  const out: Record<string, string> = {};
  for (const c of serverChecks(project, directory)) out[c.name] = await run(c.command, c.title);
  return { containers: parseInspect(out.compose!), firewall: firewallLines(out.firewall!), cron: ruleLines(out.cron!), disk: parseDf(out.disk!) };
}

export type Release = typeof releases.$inferSelect;

/**
 * Stores a deploy as the next release of its project: the files it wrote and what the server ran after
 * `up` (digests, ports, firewall and cron). The unique (project, number) index makes two deploys racing
 * for one number fail rather than share it.
 */
export async function recordRelease(db: Db, projectId: number, directory: string, files: Record<string, string>, live: LiveState): Promise<Release> {
  return db.transaction(async (tx) => {
    const [last] = await tx.select({ number: releases.number }).from(releases).where(eq(releases.projectId, projectId)).orderBy(desc(releases.number)).limit(1);
    await tx.update(releases).set({ status: 'superseded' }).where(and(eq(releases.projectId, projectId), eq(releases.status, 'live')));
    const [row] = await tx
      .insert(releases)
      .values({
        projectId,
        number: (last?.number ?? 0) + 1,
        directory,
        files,
        containers: live.containers.map(({ service, image, digest, ports, state }) => ({ service, image, digest, ports, state })),
        baseline: { firewall: live.firewall, cron: live.cron },
      })
      .returning();
    return row!;
  });
}

export async function listReleases(db: Db, projectId: number): Promise<Release[]> {
  return db.select().from(releases).where(eq(releases.projectId, projectId)).orderBy(desc(releases.number));
}

/** The release drift is checked against: the newest one that was not rolled back. */
export async function baselineRelease(db: Db, projectId: number): Promise<(ReleaseBaseline & Release) | undefined> {
  const [row] = await db.select().from(releases).where(and(eq(releases.projectId, projectId), ne(releases.status, 'rolled_back'))).orderBy(desc(releases.number)).limit(1);
  return row;
}
