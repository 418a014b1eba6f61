import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../../errors';
import type { EventBus } from '../events/eventBus';
import type { ApprovalRequestMessage, RunsOn } from '../../../shared/events';

/** Whose approval it is: the caller's installation and one of its projects. */
export interface ApprovalScope {
  installationId: number;
  projectId: number;
}

export type ApprovalDecision = 'approved' | 'denied' | 'expired';

/** A command waiting for the person; `decision` settles once (approve, deny, expiry or cancel). */
export interface PendingApproval {
  readonly id: string;
  readonly command: string;
  readonly decision: Promise<ApprovalDecision>;
}

interface Entry extends ApprovalScope {
  id: string;
  command: string;
  dangerousReason: string | undefined;
  runsOn: RunsOn | undefined;
  state: 'pending' | ApprovalDecision;
  /** Resolves the decision the turn waits for; does nothing on a replica that only mirrors the request. */
  settle: (d: ApprovalDecision) => void;
  /** Whether the turn waiting for it runs here (not a mirror of another replica's request). */
  owned: boolean;
  /** The replica whose turn waits for it. */
  holder: string;
  timer: NodeJS.Timeout;
}

/** Topics of the approvals on the app's event bus (replicas mirror each other's requests). */
export const APPROVAL_TOPICS = { requested: 'approvals.requested', settled: 'approvals.settled', alive: 'approvals.alive' } as const;

/** How often a replica says it is alive to the others; one silent for two of these holds no command any more. */
export const APPROVAL_HEARTBEAT_MS = 5_000;

/** A request announced by the replica whose turn waits for it. */
interface RequestedEvent extends ApprovalScope {
  from: string;
  id: string;
  command: string;
  dangerousReason?: string;
  runsOn?: RunsOn;
}

/** A request settled on some replica: the one whose turn waits for it runs (or drops) the command. */
interface SettledEvent {
  from: string;
  id: string;
  decision: ApprovalDecision;
}

export const APPROVAL_NOT_FOUND = 'Approval request not found or expired';
export const APPROVAL_DECIDED = 'This approval request has already been decided';
export const APPROVAL_HOLDER_GONE =
  'The server instance holding this command is gone, so it can no longer run: ask the DevOps Helper again';

const scopeKey = (s: ApprovalScope): string => `${s.installationId}:${s.projectId}`;

/**
 * The DevOps Helper's approval requests, in memory. A request is announced to the project's approval
 * sockets and settles once: approved or denied by `decide` (only within its own installation and
 * project; anything else is a 404, like an unknown id), expired after `ttlMs`, or cancelled when its turn
 * is killed. A decided id answers 409 until it is forgotten, `ttlMs` after it was created.
 *
 * With the app's event bus, every replica mirrors the requests of the others: a request is announced to
 * the project's sockets on every replica, and a decision made on any replica settles it on the replica
 * whose turn waits for it, which then runs the command. Two decisions made at the same moment on two
 * replicas may both be answered; the first to reach the waiting turn is the one that counts.
 *
 * @example
 *   const a = approvals.request(scope, 'df -h', undefined);   // sockets get {"type":"approval_request","id":"…","command":"df -h"}
 *   approvals.decide(scope, a.id, true);                      // a.decision resolves 'approved'
 */
export function createApprovals({ ttlMs, events, heartbeatMs = APPROVAL_HEARTBEAT_MS }: { ttlMs: number; events?: EventBus<unknown>; heartbeatMs?: number }) {
  const entries = new Map<string, Entry>();
  const listeners = new Map<string, Set<(m: ApprovalRequestMessage) => void>>();
  /** Names this replica's announcements, which it has already applied. */
  const self = randomUUID();
  /** When each other replica last said it is alive (its announcements and heartbeats). */
  const lastHeard = new Map<string, number>();
  const hear = (replica: string): void => void lastHeard.set(replica, Date.now());
  // A replica killed outright (SIGKILL, a lost host) tells nobody its commands will not run: the others
  // notice its silence, and an answer to one of its requests says so instead of "approved".
  const heartbeat = events ? setInterval(() => events.publish(APPROVAL_TOPICS.alive, self), heartbeatMs) : undefined;
  heartbeat?.unref();
  const unsubscribeAlive = events?.subscribe(APPROVAL_TOPICS.alive, (event) => {
    if (event !== self && typeof event === 'string') hear(event);
  });
  const holderGone = (e: Entry): boolean => !e.owned && Date.now() - (lastHeard.get(e.holder) ?? 0) > 2 * heartbeatMs;

  const messageOf = (e: Entry): ApprovalRequestMessage => ({
    type: 'approval_request',
    id: e.id,
    command: e.command,
    ...(e.dangerousReason ? { dangerous_reason: e.dangerousReason } : {}),
    ...(e.runsOn ? { runs_on: e.runsOn } : {}),
  });

  const announce = (e: Entry): void => {
    for (const listener of listeners.get(scopeKey(e)) ?? []) listener(messageOf(e));
  };

  /** A request in memory, forgotten `ttlMs` after it was created (expired first if still pending). */
  const keep = (fields: Omit<Entry, 'state' | 'timer'>): Entry => {
    const entry: Entry = {
      ...fields,
      state: 'pending',
      timer: setTimeout(() => {
        settle(entry, 'expired');
        entries.delete(entry.id);
      }, ttlMs),
    };
    entry.timer.unref();
    entries.set(entry.id, entry);
    return entry;
  };

  const settle = (e: Entry, decision: ApprovalDecision): void => {
    if (e.state !== 'pending') return;
    e.state = decision;
    e.settle(decision);
    // An expired or cancelled request is gone at once; a decided one stays to refuse a replay.
    if (decision === 'expired') {
      clearTimeout(e.timer);
      entries.delete(e.id);
    }
  };

  /** Settles here and tells the other replicas. */
  const settleEverywhere = (e: Entry, decision: ApprovalDecision): void => {
    settle(e, decision);
    events?.publish(APPROVAL_TOPICS.settled, { from: self, id: e.id, decision } satisfies SettledEvent);
  };

  const unsubscribeRequested = events?.subscribe(APPROVAL_TOPICS.requested, (event) => {
    const e = event as RequestedEvent;
    if (e.from === self || entries.has(e.id)) return;
    hear(e.from);
    const mirror = keep({ holder: e.from, installationId: e.installationId, projectId: e.projectId, id: e.id, command: e.command, dangerousReason: e.dangerousReason, runsOn: e.runsOn, settle: () => undefined, owned: false });
    announce(mirror);
  });
  const unsubscribeSettled = events?.subscribe(APPROVAL_TOPICS.settled, (event) => {
    const e = event as SettledEvent;
    const entry = e.from === self ? undefined : entries.get(e.id);
    if (entry) settle(entry, e.decision);
  });

  return {
    /**
     * Creates a request for `command` as the person is shown it (secrets typed into it already blanked by
     * the caller, which runs its own exact bytes once approved) and announces it to the project's sockets (on every replica).
     */
    request(scope: ApprovalScope, command: string, dangerousReason: string | undefined, runsOn?: RunsOn): PendingApproval {
      const id = randomUUID();
      let resolve!: (d: ApprovalDecision) => void;
      const decision = new Promise<ApprovalDecision>((r) => (resolve = r));
      const entry = keep({ ...scope, id, command, dangerousReason, runsOn, settle: resolve, owned: true, holder: self });
      announce(entry);
      events?.publish(APPROVAL_TOPICS.requested, {
        from: self,
        ...scope,
        id,
        command,
        ...(dangerousReason ? { dangerousReason } : {}),
        ...(runsOn ? { runsOn } : {}),
      } satisfies RequestedEvent);
      return { id, command, decision };
    },

    /**
     * The person's answer: 404 for an unknown, expired or other tenant's id, 409 for a second answer, and
     * 409 with the reason when the replica holding the command has gone silent (it can no longer run).
     */
    decide(scope: ApprovalScope, id: string, approved: boolean): 'approved' | 'denied' {
      const entry = entries.get(id);
      if (!entry || entry.installationId !== scope.installationId || entry.projectId !== scope.projectId) throw notFound(APPROVAL_NOT_FOUND);
      if (entry.state !== 'pending') throw conflict(APPROVAL_DECIDED);
      if (holderGone(entry)) {
        settle(entry, 'expired');
        throw conflict(APPROVAL_HOLDER_GONE);
      }
      const decision = approved ? 'approved' : 'denied';
      settleEverywhere(entry, decision);
      return decision;
    },

    /** Ends a request nobody answered (its turn was stopped): it never runs. */
    cancel(id: string): void {
      const entry = entries.get(id);
      if (entry) settleEverywhere(entry, 'expired');
    },

    /** Requests of the project still waiting, oldest first (sent to a socket when it connects). */
    pending(scope: ApprovalScope): ApprovalRequestMessage[] {
      return [...entries.values()].filter((e) => e.state === 'pending' && scopeKey(e) === scopeKey(scope)).map(messageOf);
    },

    /** Calls `listener` with each new request of the project; returns the unsubscribe. */
    subscribe(scope: ApprovalScope, listener: (m: ApprovalRequestMessage) => void): () => void {
      const key = scopeKey(scope);
      let set = listeners.get(key);
      if (!set) listeners.set(key, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (!set.size) listeners.delete(key);
      };
    },

    /** At shutdown: every request expires (the other replicas hear of those whose turn was here). */
    close(): void {
      unsubscribeRequested?.();
      unsubscribeSettled?.();
      unsubscribeAlive?.();
      clearInterval(heartbeat);
      for (const e of entries.values()) {
        if (e.state === 'pending' && e.owned) settleEverywhere(e, 'expired');
        else settle(e, 'expired');
        clearTimeout(e.timer);
      }
      entries.clear();
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
