import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../../errors';
import type { ApprovalRequestMessage } from '../../../shared/events';

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
  state: 'pending' | ApprovalDecision;
  settle: (d: ApprovalDecision) => void;
  timer: NodeJS.Timeout;
}

export const APPROVAL_NOT_FOUND = 'Approval request not found or expired';
export const APPROVAL_DECIDED = 'This approval request has already been decided';

const scopeKey = (s: ApprovalScope): string => `${s.installationId}:${s.projectId}`;

/**
 * The DevOps Helper's approval requests, in memory. A request is announced to the project's approval
 * sockets and settles once: approved or denied by `decide` (only within its own installation and
 * project; anything else is a 404, like an unknown id), expired after `ttlMs`, or cancelled when its turn
 * is killed. A decided id answers 409 until it is forgotten, `ttlMs` after it was created.
 *
 * @example
 *   const a = approvals.request(scope, 'df -h', undefined);   // sockets get {"type":"approval_request","id":"…","command":"df -h"}
 *   approvals.decide(scope, a.id, true);                      // a.decision resolves 'approved'
 */
export function createApprovals({ ttlMs }: { ttlMs: number }) {
  const entries = new Map<string, Entry>();
  const listeners = new Map<string, Set<(m: ApprovalRequestMessage) => void>>();

  const messageOf = (e: Entry): ApprovalRequestMessage => ({
    type: 'approval_request',
    id: e.id,
    command: e.command,
    ...(e.dangerousReason ? { dangerous_reason: e.dangerousReason } : {}),
  });

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

  return {
    /**
     * Creates a request for `command` as the person is shown it (secrets typed into it already blanked by
     * the caller, which runs its own exact bytes once approved) and announces it to the project's sockets.
     */
    request(scope: ApprovalScope, command: string, dangerousReason: string | undefined): PendingApproval {
      const id = randomUUID();
      let resolve!: (d: ApprovalDecision) => void;
      const decision = new Promise<ApprovalDecision>((r) => (resolve = r));
      const entry: Entry = {
        ...scope,
        id,
        command,
        dangerousReason,
        state: 'pending',
        settle: resolve,
        timer: setTimeout(() => {
          settle(entry, 'expired');
          entries.delete(id);
        }, ttlMs),
      };
      entry.timer.unref();
      entries.set(id, entry);
      for (const listener of listeners.get(scopeKey(scope)) ?? []) listener(messageOf(entry));
      return { id, command, decision };
    },

    /** The person's answer: 404 for an unknown, expired or other tenant's id, 409 for a second answer. */
    decide(scope: ApprovalScope, id: string, approved: boolean): 'approved' | 'denied' {
      const entry = entries.get(id);
      if (!entry || entry.installationId !== scope.installationId || entry.projectId !== scope.projectId) throw notFound(APPROVAL_NOT_FOUND);
      if (entry.state !== 'pending') throw conflict(APPROVAL_DECIDED);
      const decision = approved ? 'approved' : 'denied';
      settle(entry, decision);
      return decision;
    },

    /** Ends a request nobody answered (its turn was stopped): it never runs. */
    cancel(id: string): void {
      const entry = entries.get(id);
      if (entry) settle(entry, 'expired');
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

    close(): void {
      for (const e of entries.values()) {
        settle(e, 'expired');
        clearTimeout(e.timer);
      }
      entries.clear();
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
