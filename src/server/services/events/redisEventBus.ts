import { randomUUID } from 'node:crypto';
import { BUS_RESYNC_TOPIC, createInProcessEventBus, type EventBus } from './eventBus';

/** The one Redis channel every replica's events travel on (a topic is a field of the message). */
export const EVENTS_CHANNEL = 'devops-agents:events';

interface Envelope {
  /** The replica that published it: a replica has already delivered its own events, in order. */
  origin: string;
  topic: string;
  event: unknown;
}

export interface RedisEventBus extends EventBus<unknown> {
  /**
   * Why this replica may be serving stale state, or null: while either connection to Redis is down,
   * other replicas' events (a logout, a write, an approval) do not arrive and its caches are not dropped.
   */
  problem(): string | null;
  close(): Promise<void>;
}

export interface RedisEventBusOptions {
  url: string;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** How long the first connection may take before the start fails (default 10 s). */
  connectTimeoutMs?: number;
}

/**
 * The event bus across replicas (ARCHITECTURE.md): Redis pub/sub on one channel. `publish` delivers to
 * this process's subscribers at once and synchronously (exactly like the in-process bus, so a replica
 * alone behaves the same), then sends the event to Redis; each other replica delivers it to its own
 * subscribers. Events are JSON. Subscribing is local only: every replica receives the whole channel
 * from the start, so no event is lost to a SUBSCRIBE still under way.
 *
 * Redis pub/sub keeps nothing for a subscriber that is away: after a reconnect the bus publishes
 * BUS_RESYNC_TOPIC locally, and the caches listening to it drop what they hold.
 *
 * @example wire message on `devops-agents:events`
 *   {"origin":"3f0c…","topic":"sessions.destroyed","event":"9b1d…"}
 */
export async function createRedisEventBus(options: RedisEventBusOptions): Promise<RedisEventBus> {
  const origin = randomUUID();
  const local = createInProcessEventBus<unknown>();
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  // One connection publishes, one subscribes (a subscribed connection can do nothing else).
  let readyOnce = false;
  let closing = false;
  // No retry before the first connection (the start fails with a clear message); after it, back off up to 2 s.
  const retryStrategy = (times: number): number | null => (readyOnce && !closing ? Math.min(times * 100, 2_000) : null);
  // disconnectTimeout: a socket that never connected keeps ioredis' 2 s destroy timer alive after a failed start.
  // Loaded only here: an installation without REDIS_URL never loads the client (part of a cold start).
  const { Redis } = await import('ioredis');
  const publisher = new Redis(options.url, { lazyConnect: true, connectTimeout, maxRetriesPerRequest: null, retryStrategy, disconnectTimeout: 200 });
  const subscriber = publisher.duplicate();
  for (const [name, connection] of [['publisher', publisher], ['subscriber', subscriber]] as const) {
    // Without a listener an 'error' event would end the process; ioredis reconnects by itself.
    connection.on('error', (err: Error) => {
      if (readyOnce && !closing) options.log.warn({ err: err.message, connection: name }, 'event bus: Redis connection error (reconnecting)');
    });
  }
  subscriber.on('ready', () => {
    if (readyOnce && !closing) {
      options.log.info({}, 'event bus: reconnected to Redis; caches dropped in case events were missed');
      local.publish(BUS_RESYNC_TOPIC, null);
    }
  });
  subscriber.on('message', (channel: string, raw: string) => {
    if (channel !== EVENTS_CHANNEL) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      return; // not one of ours
    }
    if (envelope.origin === origin || typeof envelope.topic !== 'string') return;
    local.publish(envelope.topic, envelope.event);
  });

  const connected = await Promise.allSettled([publisher.connect(), subscriber.connect()]);
  const failed = connected.find((c): c is PromiseRejectedResult => c.status === 'rejected');
  if (failed) {
    publisher.disconnect();
    subscriber.disconnect();
    throw new Error(`REDIS_URL: could not connect to Redis (${(failed.reason as Error).message})`);
  }
  await subscriber.subscribe(EVENTS_CHANNEL);
  readyOnce = true;

  return {
    publish(topic, event) {
      local.publish(topic, event);
      const envelope: Envelope = { origin, topic, event };
      publisher.publish(EVENTS_CHANNEL, JSON.stringify(envelope)).catch((err: unknown) => {
        options.log.warn({ err: (err as Error).message, topic }, 'event bus: could not publish to Redis');
      });
    },
    subscribe: local.subscribe,
    problem() {
      const down = [['publisher', publisher], ['subscriber', subscriber]].filter(([, c]) => (c as typeof publisher).status !== 'ready');
      return down.length ? `The event bus (Redis) is not connected (${down.map(([name]) => name as string).join(', ')}): this replica would serve state other replicas have changed` : null;
    },
    async close() {
      closing = true;
      await Promise.allSettled([subscriber.quit(), publisher.quit()]);
    },
  };
}
