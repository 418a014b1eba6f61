import { createHash, randomBytes } from 'node:crypto';
import { BUS_RESYNC_TOPIC, type EventBus } from '../events/eventBus';

/** One version of a key's state: its weak ETag always, its JSON body only when a caller needs it. */
export interface Snapshot<V> {
  readonly value: V;
  /**
   * `W/"{digest of key and body}"`: the same on every replica that holds the same state (a load
   * balancer may send a browser's next poll to another one), and new whenever the body changes.
   * Built with the body, on first use.
   */
  readonly etag: string;
  /** The value as JSON, serialised on the first call and kept for this version. */
  body(): string;
}

export interface VersionedSnapshotsOptions<K, V> {
  /** Reads the key's current state (from the database, a driver…). */
  load(key: K): Promise<V>;
  /** The body of a version; `JSON.stringify` by default. */
  serialize?(value: V): string;
  /**
   * For state that can change without anyone telling us (a container that dies): a snapshot older
   * than this is loaded again on next use, and keeps its ETag when its body has not changed.
   */
  maxAgeMs?: number;
  /** Keys kept at most; the oldest is dropped beyond (it is loaded again when asked for). */
  maxKeys?: number;
  /**
   * The app's event bus and a topic naming this set of snapshots: a key invalidated or updated here is
   * dropped on every other replica too (their next poll loads it again). None: this process only.
   */
  shared?: { bus: EventBus<unknown>; topic: string };
  now?(): number;
}

/** What travels on a snapshot set's topic: the key that changed, and which copy changed it. */
interface SnapshotChanged<K> {
  from: string;
  key: K;
}

export interface VersionedSnapshots<K, V> {
  /** The key's current snapshot, loaded on first use; concurrent first uses share one load. */
  get(key: K): Promise<Snapshot<V>>;
  /**
   * The key's current snapshot when memory holds it (loaded, not being loaded again, not older than
   * `maxAgeMs`), without loading: what a hot poll answers before any promise. Undefined: ask `get`.
   */
  peek(key: K): Snapshot<V> | undefined;
  /**
   * The key's state changed: the next `get` loads it again. Call it after the change is committed; a
   * load already under way still answers its callers but is never kept, so it cannot hide the change.
   */
  invalidate(key: K): void;
  /**
   * `invalidate` on this copy only: for a change every replica has already heard of (an event on the
   * bus reached each of them), so announcing it again would only send it around once more per replica.
   */
  forget(key: K): void;
  /** `invalidate`, then `get`. */
  refresh(key: K): Promise<Snapshot<V>>;
  /** A new version of a key in memory without loading (nothing happens when the key is not loaded). */
  update(key: K, change: (value: V) => V): void;
  /** Forgets every key. */
  clear(): void;
}

/** What a hot poll reads: a key's snapshot from memory when it is there (`peek`), else loaded (`get`). */
export type SnapshotSource<K, V> = Pick<VersionedSnapshots<K, V>, 'get' | 'peek'>;

/** `shared` for `topic` when the app's event bus is given (spread into the options). */
export function sharedOn(bus: EventBus<unknown> | undefined, topic: string): Pick<VersionedSnapshotsOptions<never, never>, 'shared'> {
  return bus ? { shared: { bus, topic } } : {};
}

interface Entry<V> {
  snapshot?: VersionedSnapshot<V>;
  loadedAt: number;
  loading?: Promise<Snapshot<V>>;
}

/** A weak ETag naming a key's body: 128 bits of SHA-1, so two different bodies never share one in practice. */
export function contentEtag(key: string | number, body: string): string {
  return `W/"${createHash('sha1').update(`${key}\n${body}`).digest('base64url').slice(0, 22)}"`;
}

class VersionedSnapshot<V> implements Snapshot<V> {
  private json: string | null;
  private tag: string | null = null;

  constructor(
    readonly value: V,
    private readonly key: string | number,
    private readonly serialize: (value: V) => string,
    json: string | null = null,
  ) {
    this.json = json;
  }

  get etag(): string {
    if (this.tag === null) this.tag = contentEtag(this.key, this.body());
    return this.tag;
  }

  body(): string {
    if (this.json === null) this.json = this.serialize(this.value);
    return this.json;
  }
}

const DEFAULT_MAX_KEYS = 10_000;

/**
 * Answers a hot poll from memory: one snapshot per key (a project, an installation), each version with
 * its JSON and a weak ETag naming it, both built once, on the first poll of that version. A poll whose
 * If-None-Match is current thus costs no query and no serialisation, on whichever replica it lands.
 *
 * Writers call `invalidate(key)` after they commit. Each load belongs to the key's entry at the time
 * it started; `invalidate` replaces that entry, so a load that began before the change (and may have
 * read the old state) is never kept — the generation is the entry itself. With `shared`, the other
 * replicas drop the key too, through the event bus; they load it again, and the same state gives them
 * the same ETag.
 *
 * @example
 * ```ts
 * const balances = createVersionedSnapshots({ load: async (installationId: number) => ({ credits_balance: await read(installationId) }) });
 * const snapshot = await balances.get(installationId);   // then sendSnapshot(request, reply, snapshot)
 * await db.transaction(write); balances.invalidate(installationId);
 * ```
 */
export function createVersionedSnapshots<K extends string | number, V>(options: VersionedSnapshotsOptions<K, V>): VersionedSnapshots<K, V> {
  const serialize = options.serialize ?? ((value: V) => JSON.stringify(value));
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  /** Names this copy on the bus. */
  const epoch = randomBytes(4).toString('hex');
  const entries = new Map<K, Entry<V>>();

  const make = (key: K, value: V, json: string | null = null): VersionedSnapshot<V> => new VersionedSnapshot(value, key, serialize, json);

  const fresh = (entry: Entry<V>): boolean => options.maxAgeMs === undefined || now() - entry.loadedAt < options.maxAgeMs;

  function load(key: K, stale?: VersionedSnapshot<V>): Promise<Snapshot<V>> {
    const entry: Entry<V> = { loadedAt: 0, ...(stale ? { snapshot: stale } : {}) };
    entries.delete(key); // re-inserted last: the Map's order is then the order of use
    entries.set(key, entry);
    if (entries.size > maxKeys) entries.delete(entries.keys().next().value as K);
    entry.loading = options.load(key).then(
      (value) => {
        let snapshot: VersionedSnapshot<V>;
        if (stale) {
          // A reload after maxAgeMs: the same body keeps its ETag, so polls keep answering 304.
          const json = serialize(value);
          snapshot = json === stale.body() ? stale : make(key, value, json);
        } else {
          snapshot = make(key, value);
        }
        if (entries.get(key) === entry) {
          entry.snapshot = snapshot;
          entry.loadedAt = now();
          delete entry.loading;
        }
        return snapshot;
      },
      (err: unknown) => {
        if (entries.get(key) === entry) entries.delete(key);
        throw err;
      },
    );
    return entry.loading;
  }

  // The epoch names this copy: a copy ignores its own announcements (it has already applied them).
  const shared = options.shared;
  const announce = (key: K): void => shared?.bus.publish(shared.topic, { from: epoch, key } satisfies SnapshotChanged<K>);
  shared?.bus.subscribe(shared.topic, (event) => {
    const changed = event as SnapshotChanged<K>;
    if (changed.from !== epoch) forget(changed.key);
  });
  shared?.bus.subscribe(BUS_RESYNC_TOPIC, () => entries.clear());

  const forget = (key: K): void => {
    entries.delete(key);
  };
  const invalidate = (key: K): void => {
    forget(key);
    announce(key);
  };

  const peek = (key: K): Snapshot<V> | undefined => {
    const entry = entries.get(key);
    return entry?.snapshot && !entry.loading && fresh(entry) ? entry.snapshot : undefined;
  };

  const get = (key: K): Promise<Snapshot<V>> => {
    const entry = entries.get(key);
    if (entry?.loading) return entry.loading;
    if (entry?.snapshot && fresh(entry)) return Promise.resolve(entry.snapshot);
    return load(key, entry?.snapshot);
  };

  return {
    get,
    peek,
    invalidate,
    forget,
    refresh(key) {
      invalidate(key);
      return get(key);
    },
    update(key, change) {
      const entry = entries.get(key);
      if (entry?.snapshot && !entry.loading) entry.snapshot = make(key, change(entry.snapshot.value));
      // The other replicas cannot apply the change (it lives here): they load the key again.
      announce(key);
    },
    clear() {
      entries.clear();
    },
  };
}
