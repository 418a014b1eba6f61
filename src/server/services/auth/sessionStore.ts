import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { installations, sessions } from '../../db/schema';

export interface SessionInfo {
  userId: number;
  /** Our installation row id: every tenant query scopes by it. */
  installationId: number;
  /** The id the client holds (Installation-Id header). */
  publicInstallationId: number;
}

export interface SessionStoreOptions {
  idleMs: number;
  absoluteMs: number;
  /** How long a looked-up session is trusted from memory before the database is asked again. */
  cacheMs?: number;
  now?: () => number;
}

interface Cached {
  info: SessionInfo;
  checkedAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

const hash = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Server-side sessions: the cookie holds a random 256-bit token, the database holds its sha256 with
 * idle and absolute expiry. Lookups are cached for a few seconds so hot polling routes do not hit
 * the database on every call; `destroy` drops the cache entry at once on this server.
 */
export function createSessionStore(db: Db, options: SessionStoreOptions) {
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? 5_000;
  const cache = new Map<string, Cached>();
  const touchEveryMs = Math.min(60_000, options.idleMs / 10);

  return {
    async create(userId: number, installationId: number): Promise<string> {
      const token = randomBytes(32).toString('base64url');
      const t = now();
      await db.insert(sessions).values({
        id: hash(token),
        userId,
        installationId,
        createdAt: new Date(t),
        lastSeenAt: new Date(t),
        expiresAt: new Date(t + options.absoluteMs),
      });
      return token;
    },

    async resolve(token: string | undefined): Promise<SessionInfo | null> {
      if (!token || token.length > 100) return null;
      const id = hash(token);
      const t = now();
      const hit = cache.get(id);
      if (hit && t - hit.checkedAt < cacheMs && hit.expiresAt > t && t - hit.lastSeenAt < options.idleMs) {
        return hit.info;
      }
      cache.delete(id);
      const [row] = await db
        .select({
          userId: sessions.userId,
          installationId: sessions.installationId,
          publicInstallationId: installations.publicId,
          lastSeenAt: sessions.lastSeenAt,
          expiresAt: sessions.expiresAt,
        })
        .from(sessions)
        .innerJoin(installations, eq(installations.id, sessions.installationId))
        .where(and(eq(sessions.id, id), gt(sessions.expiresAt, new Date(t))));
      if (!row || t - row.lastSeenAt.getTime() >= options.idleMs) return null;
      let lastSeenAt = row.lastSeenAt.getTime();
      if (t - lastSeenAt > touchEveryMs) {
        lastSeenAt = t;
        await db.update(sessions).set({ lastSeenAt: new Date(t) }).where(eq(sessions.id, id));
      }
      const info = { userId: row.userId, installationId: row.installationId, publicInstallationId: row.publicInstallationId };
      if (cache.size > 10_000) cache.clear();
      cache.set(id, { info, checkedAt: t, lastSeenAt, expiresAt: row.expiresAt.getTime() });
      return info;
    },

    async destroy(token: string | undefined): Promise<void> {
      if (!token) return;
      const id = hash(token);
      cache.delete(id);
      await db.delete(sessions).where(eq(sessions.id, id));
    },

    /** Deletes expired and idle sessions; run at start and periodically. */
    async prune(): Promise<void> {
      const t = now();
      await db
        .delete(sessions)
        .where(or(lt(sessions.expiresAt, new Date(t)), lt(sessions.lastSeenAt, new Date(t - options.idleMs))));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
