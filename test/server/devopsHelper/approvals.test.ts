import { createApprovals } from '../../../src/server/services/devopsHelper/approvals';

describe('DevOps Helper approvals', () => {
  const alice = { installationId: 1, projectId: 10 };

  it('expires an unanswered request: it settles as expired and can no longer be approved', async () => {
    const approvals = createApprovals({ ttlMs: 30 });
    const pending = approvals.request(alice, 'touch late.txt', undefined);
    expect(approvals.pending(alice)).toHaveLength(1);
    await expect(pending.decision).resolves.toBe('expired');
    expect(() => approvals.decide(alice, pending.id, true)).toThrow(expect.objectContaining({ statusCode: 404 }));
    expect(approvals.pending(alice)).toEqual([]);
    approvals.close();
  });

  it('settles once: a cancelled request cannot be approved, a decided one refuses a second answer', async () => {
    const approvals = createApprovals({ ttlMs: 60_000 });
    const cancelled = approvals.request(alice, 'touch a', undefined);
    approvals.cancel(cancelled.id);
    await expect(cancelled.decision).resolves.toBe('expired');
    expect(() => approvals.decide(alice, cancelled.id, true)).toThrow(expect.objectContaining({ statusCode: 404 }));
    const decided = approvals.request(alice, 'touch b', 'Deletes files');
    expect(approvals.pending(alice)).toEqual([{ type: 'approval_request', id: decided.id, command: 'touch b', dangerous_reason: 'Deletes files' }]);
    expect(approvals.decide(alice, decided.id, true)).toBe('approved');
    expect(() => approvals.decide(alice, decided.id, false)).toThrow(expect.objectContaining({ statusCode: 409 }));
    await expect(decided.decision).resolves.toBe('approved');
    approvals.close();
  });

  it('announces requests only to the sockets of their own installation and project', () => {
    const approvals = createApprovals({ ttlMs: 60_000 });
    const seen: string[] = [];
    const other: string[] = [];
    const unsubscribe = approvals.subscribe(alice, (m) => seen.push(m.command));
    approvals.subscribe({ installationId: 2, projectId: 10 }, (m) => other.push(m.command));
    approvals.request(alice, 'uptime', undefined);
    unsubscribe();
    approvals.request(alice, 'df -h', undefined);
    expect(seen).toEqual(['uptime']);
    expect(other).toEqual([]);
    approvals.close();
  });
});
