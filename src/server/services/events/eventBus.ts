/**
 * Events that cross from the code that produces them to the streams that carry them to browsers (the
 * commands the execution agent runs, for the terminal). In-process by default; a Redis pub/sub with the
 * same two methods replaces it when API replicas sit behind a load balancer (ARCHITECTURE.md).
 */
export interface EventBus<T> {
  publish(topic: string, event: T): void;
  /** Calls `listener` for every event published on `topic` from now on; the answer unsubscribes. */
  subscribe(topic: string, listener: (event: T) => void): () => void;
}

/**
 * Published on this process's bus when events of other replicas may have been missed (the Redis bus
 * reconnected): every cache kept up by events drops what it holds.
 */
export const BUS_RESYNC_TOPIC = 'event-bus.resync';

export function createInProcessEventBus<T>(): EventBus<T> {
  const topics = new Map<string, Set<(event: T) => void>>();
  return {
    publish(topic, event) {
      for (const listener of topics.get(topic) ?? []) {
        try {
          listener(event);
        } catch {
          // One broken subscriber (a socket that just closed) must not stop the others.
        }
      }
    },
    subscribe(topic, listener) {
      let listeners = topics.get(topic);
      if (!listeners) topics.set(topic, (listeners = new Set()));
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (!listeners.size && topics.get(topic) === listeners) topics.delete(topic);
      };
    },
  };
}

/**
 * A view of the app's one bus for events of type T. Topics name their event type (each area publishes
 * and subscribes its own topics), so the cast only restates what the topic already says.
 */
export function topicsOf<T>(bus: EventBus<unknown>): EventBus<T> {
  return bus as EventBus<T>;
}
