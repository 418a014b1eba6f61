import { APPROVAL_HOLDER_GONE, APPROVAL_NOT_FOUND, createApprovals } from '../../../src/server/services/devopsHelper/approvals';
import { createInProcessEventBus } from '../../../src/server/services/events/eventBus';

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

  it('a replica killed outright: answering its request through another says the command can no longer run, never "approved"', async () => {
    const bus = createInProcessEventBus<unknown>();
    let alive = true;
    // The killed replica's view of the bus: once it is gone, nothing it would say reaches anyone.
    const killable = { publish: (topic: string, event: unknown) => alive && bus.publish(topic, event), subscribe: bus.subscribe };
    const heartbeatMs = 20;
    const a = createApprovals({ ttlMs: 60_000, events: bus, heartbeatMs });
    const b = createApprovals({ ttlMs: 60_000, events: killable, heartbeatMs });
    const held = b.request(alice, 'systemctl restart app', undefined);
    const live = b.request(alice, 'uptime', undefined);
    expect(a.decide(alice, live.id, true)).toBe('approved');

    alive = false;
    // Silence for longer than two heartbeats (longer is always safe: a killed replica never speaks again).
    await new Promise((resolve) => setTimeout(resolve, 5 * heartbeatMs));
    expect(() => a.decide(alice, held.id, true)).toThrow(expect.objectContaining({ statusCode: 409, message: APPROVAL_HOLDER_GONE }));
    expect(() => a.decide(alice, held.id, true)).toThrow(expect.objectContaining({ statusCode: 404, message: APPROVAL_NOT_FOUND }));
    // Settled as expired: gone, and nothing waits for it anywhere.
    expect(a.pending(alice)).toEqual([]);
    a.close();
    b.close();
  });

  it('replicas on one bus: a request is announced everywhere, decided on any replica, settled where its turn waits', async () => {
    const bus = createInProcessEventBus<unknown>();
    const [a, b] = [createApprovals({ ttlMs: 60_000, events: bus }), createApprovals({ ttlMs: 60_000, events: bus })];
    const seenOnA: string[] = [];
    a.subscribe(alice, (m) => seenOnA.push(m.command));
    const held = b.request(alice, 'uptime', undefined);
    expect(seenOnA).toEqual(['uptime']);
    expect(a.pending(alice)).toEqual([{ type: 'approval_request', id: held.id, command: 'uptime' }]);
    // The same tenant checks on the replica that only mirrors it.
    expect(() => a.decide({ installationId: 2, projectId: 10 }, held.id, true)).toThrow(expect.objectContaining({ statusCode: 404 }));
    expect(a.decide(alice, held.id, true)).toBe('approved');
    await expect(held.decision).resolves.toBe('approved');
    expect(() => b.decide(alice, held.id, false)).toThrow(expect.objectContaining({ statusCode: 409 }));

    // A replica shutting down expires its own waiting requests everywhere, and leaves the others' alone.
    const dying = a.request(alice, 'df -h', undefined);
    const living = b.request(alice, 'free -m', undefined);
    a.close();
    await expect(dying.decision).resolves.toBe('expired');
    expect(b.pending(alice)).toEqual([{ type: 'approval_request', id: living.id, command: 'free -m' }]);
    b.close();
    await expect(living.decision).resolves.toBe('expired');
  });
});
