import { hash as digest, randomBytes } from 'node:crypto';
import { and, eq, gt, inArray, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { installations, sessions } from '../../db/schema';
import { BUS_RESYNC_TOPIC } from '../events/eventBus';

export interface SessionInfo {
  userId: number;
  /** Our installation row id: every tenant query scopes by it. */
  installationId: number;
  /** The id the client holds (Installation-Id header). */
  publicInstallationId: number;
  /** The session's id (sha256 of its token): what `onDestroyed` names, never the token itself. */
  sessionId: string;
}

export interface SessionStoreOptions {
  idleMs: number;
  absoluteMs: number;
  /** Sessions kept in memory at most; the least recently used (to within a touch interval) is dropped beyond, and read again when used. */
  maxCached?: number;
  now?: () => number;
}

interface Cached {
  info: SessionInfo;
  /** When this server last saw the session used (every request moves it). */
  lastSeenAt: number;
  /** When the entry last moved to the end of the cache's order of use. */
  orderedAt: number;
  /** The `last_seen_at` the database holds (or will once the pending flush is written). */
  storedLastSeenAt: number;
  expiresAt: number;
  /** The cookie's token: `entryOfToken` holds the entry by it while the entry lives. */
  token: string;
}

/** Signs out of a session everywhere: sent on the event bus so every replica drops it and closes its sockets. */
export const SESSION_DESTROYED_TOPIC = 'sessions.destroyed';

/** How the store hears of sessions ended on any replica (the app's event bus); none: this process only. */
export interface SessionEvents {
  publish(topic: string, sessionId: string): void;
  subscribe(topic: string, listener: (sessionId: string) => void): () => void;
}

/**
 * A copy of `token` that is its own string: a cookie's value is a slice of the whole Cookie header, and
 * V8 keeps a slice as a view of its parent, which a map's key comparison reads a character at a time
 * (and which keeps that first request's header alive while the session is cached).
 */
const ownString = (token: string): string => Buffer.from(token, 'utf8').toString('utf8');

/** One-shot sha256 (no Hash object per call: every authenticated request hashes its cookie). */
const hash = (token: string): string => digest('sha256', token, 'hex');

/**
 * Server-side sessions: the cookie holds a random 256-bit token, the database holds its sha256 with
 * idle and absolute expiry. A session read once is kept in memory until it expires or is destroyed
 * (here or, through the event bus, on another replica), so hot polls cost no query. `last_seen_at`
 * moves in memory on every request and is written in one batched statement per interval, off the
 * request path (`flushLastSeen`, run by a timer); it is written at most `touchEveryMs` late.
 */
export function createSessionStore(db: Db, options: SessionStoreOptions & { events?: SessionEvents }) {
  const now = options.now ?? Date.now;
  const maxCached = options.maxCached ?? 100_000;
  /** Map order is the order of use: the first entry is the least recently used. */
  const cache = new Map<string, Cached>();
  /**
   * Each cached session's entry by its cookie's token, so that a hot poll hashes nothing and looks up
   * one map. A token is kept exactly as long as its session's entry (it is already in this process's
   * memory on every request); a token that names no session is never kept.
   */
  const entryOfToken = new Map<string, Cached>();
  const touchEveryMs = Math.min(60_000, options.idleMs / 10);
  const destroyedListeners = new Set<(sessionId: string) => void>();

  const drop = (id: string): void => {
    const entry = cache.get(id);
    if (entry) entryOfToken.delete(entry.token);
    cache.delete(id);
  };
  const forget = (sessionId: string): void => {
    drop(sessionId);
    for (const listener of destroyedListeners) listener(sessionId);
  };
  const unsubscribe = options.events?.subscribe(SESSION_DESTROYED_TOPIC, forget);
  // Sign-outs of other replicas may have been missed while the bus was away: every session is read again.
  const unsubscribeResync = options.events?.subscribe(BUS_RESYNC_TOPIC, () => {
    cache.clear();
    entryOfToken.clear();
  });

  const remember = (id: string, entry: Cached): void => {
    cache.set(id, entry);
    entryOfToken.set(entry.token, entry);
    if (cache.size > maxCached) drop(cache.keys().next().value as string);
  };

  const fromMemory = (hit: Cached | undefined, t: number): SessionInfo | null => {
    if (!hit) return null;
    const id = hit.info.sessionId;
    if (hit.expiresAt <= t || t - hit.lastSeenAt >= options.idleMs) {
      drop(id); // maybe used on another replica meanwhile: the database decides
      return null;
    }
    // The order of use moves once per touch interval, not on every poll: eviction beyond maxCached
    // drops a session unused for longest, to within that interval.
    if (t - hit.orderedAt >= touchEveryMs) {
      cache.delete(id);
      cache.set(id, hit);
      hit.orderedAt = t;
    }
    hit.lastSeenAt = t;
    return hit.info;
  };

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

    /** The session of `token` when this process holds it and it is still valid, without a query; else null (ask `resolve`). */
    resolveFromMemory(token: string | undefined): SessionInfo | null {
      if (!token || token.length > 100) return null;
      // A token not kept names no session held here (the entry and its token live and go together).
      return fromMemory(entryOfToken.get(token), now());
    },

    async resolve(token: string | undefined): Promise<SessionInfo | null> {
      if (!token || token.length > 100) return null;
      const id = hash(token);
      const t = now();
      const known = fromMemory(cache.get(id), t);
      if (known) return known;
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
      const info = { userId: row.userId, installationId: row.installationId, publicInstallationId: row.publicInstallationId, sessionId: id };
      remember(id, { info, lastSeenAt: t, orderedAt: t, storedLastSeenAt: row.lastSeenAt.getTime(), expiresAt: row.expiresAt.getTime(), token: ownString(token) });
      return info;
    },

    async destroy(token: string | undefined): Promise<void> {
      if (!token) return;
      const id = hash(token);
      await db.delete(sessions).where(eq(sessions.id, id));
      forget(id);
      options.events?.publish(SESSION_DESTROYED_TOPIC, id);
    },

    /** Calls `listener` with the id of each session destroyed on any replica (to close its sockets); the answer unsubscribes. */
    onDestroyed(listener: (sessionId: string) => void): () => void {
      destroyedListeners.add(listener);
      return () => destroyedListeners.delete(listener);
    },

    /**
     * Writes `last_seen_at` of the sessions used since their last write more than `touchEveryMs` ago, in
     * one statement (at the flush time: at most one interval later than the last use).
     */
    async flushLastSeen(): Promise<number> {
      const t = now();
      const due: string[] = [];
      for (const [id, entry] of cache) {
        if (entry.lastSeenAt - entry.storedLastSeenAt >= touchEveryMs) {
          due.push(id);
          entry.storedLastSeenAt = entry.lastSeenAt;
        }
      }
      for (let i = 0; i < due.length; i += 1_000) {
        await db.update(sessions).set({ lastSeenAt: new Date(t) }).where(inArray(sessions.id, due.slice(i, i + 1_000)));
      }
      return due.length;
    },

    /** How often `flushLastSeen` should run. */
    flushEveryMs: touchEveryMs,

    /** Deletes expired and idle sessions; run at start and periodically. */
    async prune(): Promise<void> {
      const t = now();
      await db
        .delete(sessions)
        .where(or(lt(sessions.expiresAt, new Date(t)), lt(sessions.lastSeenAt, new Date(t - options.idleMs))));
    },

    close(): void {
      unsubscribe?.();
      unsubscribeResync?.();
      destroyedListeners.clear();
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
