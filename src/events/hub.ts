/**
 * In-process wiring between parts the composition root builds one after another: a part built
 * early (the user-tool catalog, the OAuth service) announces what happened, a part built later
 * (the MCP surface) listens. It replaces late-bound mutable references (`let mcp = null` filled
 * in afterwards). Synchronous and typed; nothing is stored, and an announcement nobody listens to
 * yet is dropped. (Durable product events for sinks are event-bus.ts, not this.)
 */
export interface Hub<Events extends object> {
  /** Calls `listener` for every later `emit` of `name`; the returned function stops it. */
  on<K extends keyof Events>(name: K, listener: (payload: Events[K]) => void): () => void;
  emit<K extends keyof Events>(name: K, payload: Events[K]): void;
}

export function createHub<Events extends object>(): Hub<Events> {
  const listeners = new Map<keyof Events, Set<(payload: never) => void>>();
  return {
    on(name, listener) {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(name, payload) {
      const set = listeners.get(name);
      if (!set) return;
      for (const listener of set) (listener as (payload: Events[typeof name]) => void)(payload);
    },
  };
}
