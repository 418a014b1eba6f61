import { createVersionedSnapshots } from '../../../src/server/services/snapshots/versionedSnapshots';
import { etagMatches } from '../../../src/server/plugins/hotPoll';
import { BUS_RESYNC_TOPIC, createInProcessEventBus } from '../../../src/server/services/events/eventBus';

/** A load the test finishes by hand, to order it against invalidations. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('versioned snapshots', () => {
  it('loads a key once for concurrent first uses, and answers from memory after', async () => {
    let loads = 0;
    const store = createVersionedSnapshots({ load: async (key: number) => ({ key, n: ++loads }) });
    const [a, b] = await Promise.all([store.get(1), store.get(1)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    expect(await store.get(1)).toBe(a);
    expect(a.etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(a.body()).toBe('{"key":1,"n":1}');
  });

  it('serialises a body once per version, and only when asked', async () => {
    let serialised = 0;
    const store = createVersionedSnapshots({ load: async () => [1, 2, 3], serialize: (v: number[]) => (serialised++, JSON.stringify(v)) });
    const snapshot = await store.get(7);
    expect(serialised).toBe(0);
    snapshot.body();
    snapshot.body();
    expect(serialised).toBe(1);
  });

  it('gives a new ETag after invalidate, and update changes the value in memory', async () => {
    let n = 0;
    const store = createVersionedSnapshots({ load: async () => ({ n: ++n }) });
    const first = await store.get(1);
    store.invalidate(1);
    const second = await store.get(1);
    expect(second.etag).not.toBe(first.etag);
    expect(second.value).toEqual({ n: 2 });
    store.update(1, (v) => ({ n: v.n * 10 }));
    const third = await store.get(1);
    expect(third.value).toEqual({ n: 20 });
    expect(third.etag).not.toBe(second.etag);
    expect(n).toBe(2);
  });

  it('names the state, not the copy: two copies (replicas) holding the same state give the same ETag, another key or body another', async () => {
    const state = { status: 'Running' };
    const copy = () => createVersionedSnapshots({ load: async (_key: number) => ({ ...state }) });
    const [a, b] = [copy(), copy()];
    expect((await b.get(1)).etag).toBe((await a.get(1)).etag);
    expect((await a.get(2)).etag).not.toBe((await a.get(1)).etag);
    state.status = 'Stopped';
    expect((await b.refresh(1)).etag).not.toBe((await a.get(1)).etag);
    expect((await a.refresh(1)).etag).toBe((await b.get(1)).etag);
  });

  it('never keeps a load that started before an invalidation (it may have read the old state)', async () => {
    const pending = [deferred<string>(), deferred<string>()];
    let calls = 0;
    const store = createVersionedSnapshots({ load: () => pending[calls++]!.promise });
    const early = store.get(1); // reads before the writer commits
    store.invalidate(1); // the writer committed
    const late = store.get(1); // a poll after the commit starts its own load
    pending[1]!.resolve('new');
    expect((await late).value).toBe('new');
    pending[0]!.resolve('old'); // the early load finishes last
    const old = await early;
    expect(old.value).toBe('old');
    const now = await store.get(1);
    expect(now.value).toBe('new');
    expect(now.etag).not.toBe(old.etag);
    expect(calls).toBe(2);
  });

  it('forgets a failed load, so the next use tries again', async () => {
    let calls = 0;
    const store = createVersionedSnapshots({
      load: async () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
        return 'ok';
      },
    });
    await expect(store.get(1)).rejects.toThrow('database down');
    expect((await store.get(1)).value).toBe('ok');
  });

  it('reloads after maxAgeMs and keeps the ETag when the body is the same', async () => {
    let time = 0;
    let status = 'Running';
    const store = createVersionedSnapshots({ load: async () => ({ status }), maxAgeMs: 1000, now: () => time });
    const first = await store.get(1);
    time = 999;
    expect(await store.get(1)).toBe(first);
    time = 1000;
    const reloaded = await store.get(1);
    expect(reloaded.etag).toBe(first.etag);
    status = 'Stopped';
    time = 2500;
    const changed = await store.get(1);
    expect(changed.etag).not.toBe(first.etag);
    expect(changed.value).toEqual({ status: 'Stopped' });
  });

  it('peeks only at a current snapshot held in memory: never loaded, being loaded, invalidated or too old is undefined', async () => {
    let time = 0;
    const load = deferred<string>();
    const store = createVersionedSnapshots({ load: () => load.promise, maxAgeMs: 1000, now: () => time });
    expect(store.peek(1)).toBeUndefined();
    const loading = store.get(1);
    expect(store.peek(1)).toBeUndefined();
    load.resolve('v1');
    const first = await loading;
    expect(store.peek(1)).toBe(first);
    time = 999;
    expect(store.peek(1)).toBe(first);
    time = 1000; // as old as maxAgeMs: `get` would load it again
    expect(store.peek(1)).toBeUndefined();
    time = 0;
    store.invalidate(1);
    expect(store.peek(1)).toBeUndefined();
  });

  it('drops the oldest key beyond maxKeys', async () => {
    let loads = 0;
    const store = createVersionedSnapshots({ load: async (k: number) => (loads++, k), maxKeys: 2 });
    await store.get(1);
    await store.get(2);
    await store.get(3);
    expect(loads).toBe(3);
    await store.get(3);
    await store.get(2);
    expect(loads).toBe(3);
    await store.get(1);
    expect(loads).toBe(4);
  });

  it('shared on a bus (replicas): a key invalidated or updated on one copy is loaded again by the others, and a resync drops everything', async () => {
    const bus = createInProcessEventBus<unknown>();
    const db = { value: 1 };
    const loads = { a: 0, b: 0 };
    const copy = (name: 'a' | 'b') =>
      createVersionedSnapshots({ load: async (_key: number) => (loads[name]++, { value: db.value }), shared: { bus, topic: 'snapshots.test' } });
    const [a, b] = [copy('a'), copy('b')];
    await a.get(1);
    expect((await b.get(1)).value).toEqual({ value: 1 });
    db.value = 2;
    a.invalidate(1);
    expect((await b.get(1)).value).toEqual({ value: 2 });
    expect((await a.get(1)).value).toEqual({ value: 2 });
    // An update in memory stays on its copy; the others read the key again.
    a.update(1, () => ({ value: 3 }));
    expect((await a.get(1)).value).toEqual({ value: 3 });
    const before = { ...loads };
    await b.get(1);
    expect(loads).toEqual({ a: before.a, b: before.b + 1 });
    bus.publish(BUS_RESYNC_TOPIC, null);
    await Promise.all([a.get(1), b.get(1)]);
    expect(loads).toEqual({ a: before.a + 1, b: before.b + 2 });
  });

  it('forget drops a key on its copy only, announcing nothing (for a change every replica has already heard of)', async () => {
    const bus = createInProcessEventBus<unknown>();
    const announced: unknown[] = [];
    bus.subscribe('snapshots.test', (event) => announced.push(event));
    const loads = { a: 0, b: 0 };
    const copy = (name: 'a' | 'b') => createVersionedSnapshots({ load: async (_key: number) => (loads[name]++, { value: 1 }), shared: { bus, topic: 'snapshots.test' } });
    const [a, b] = [copy('a'), copy('b')];
    await Promise.all([a.get(1), b.get(1)]);
    a.forget(1);
    expect(a.peek(1)).toBeUndefined();
    expect(b.peek(1)).toBeDefined();
    await a.get(1);
    expect(loads).toEqual({ a: 2, b: 1 });
    expect(announced).toEqual([]);
  });
});

describe('If-None-Match', () => {
  const etag = 'W/"ab12cd34.7.3"';
  it('matches the ETag itself, a list holding it, its strong form and *', () => {
    expect(etagMatches(etag, etag)).toBe(true);
    expect(etagMatches(`W/"x", ${etag}`, etag)).toBe(true);
    expect(etagMatches('"ab12cd34.7.3"', etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
  });
  it('does not match another version, nothing, or an empty header', () => {
    expect(etagMatches('W/"ab12cd34.7.2"', etag)).toBe(false);
    expect(etagMatches(undefined, etag)).toBe(false);
    expect(etagMatches('', etag)).toBe(false);
  });
});
