/**
 * Emitting an event: decide which sinks may receive it, then write the event and one pending
 * delivery per sink to the store's outbox in one transaction (durable before `emit` resolves).
 *
 * Visibility, decided for each sink's *owner*: tool events reach only the tool owner's sinks; a
 * plugin event reaches owners who hold its declared permission (admins pass); `grant.changed`
 * reaches admins only. Sinks cannot loop: a sink runs as its owner marked with the chain of sinks
 * that led to its event, itself last (SINK_ORIGIN, kept through the loopback too); an event its
 * run causes is stored with that chain, skips every sink in it, and past MAX_SINK_CHAIN sinks
 * reaches none. So a sink's own effects never re-trigger it, and two sinks that trigger each other
 * run once each per round instead of for ever.
 */
import { randomUUID } from "node:crypto";
import type { Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import type { Store, UserToolSummary } from "../store/store.ts";
import { createMarkCache } from "../store/mark-cache.ts";

/** Set on the principal a sink runs as: the chain of sink ids, itself last; spreads keep it (the loopback token's principal is a copy). */
export const SINK_ORIGIN: unique symbol = Symbol("knot.sinkOrigin");
/** An event caused by this many chained sink runs reaches no sink. */
export const MAX_SINK_CHAIN = 3;

export type EventAudience =
  | { readonly kind: "owner"; readonly userId: string }
  | { readonly kind: "permission"; readonly permission: string | null }
  | { readonly kind: "admins" };

export interface EmitInput {
  readonly type: string;
  readonly data: unknown;
  readonly audience: EventAudience;
  /** The principal whose action caused the event (to recognise a sink's own effects). */
  readonly cause?: Principal | null;
}

export interface EventBus {
  emit(input: EmitInput): Promise<void>;
  /**
   * Tells of a change that has already committed (a tool saved, a grant changed): an event that
   * cannot be stored is logged and lost, never turned into a failure of the change, which stands.
   */
  emitCommitted(input: EmitInput): Promise<void>;
  /** Called after each stored event (the dispatcher wakes up). */
  onStored(listener: () => void): void;
}

/** The chain of sinks whose runs led to this principal's action (empty: no sink). */
export function sinkChainOf(principal: Principal | null | undefined): readonly string[] {
  return (principal as (Principal & { [SINK_ORIGIN]?: readonly string[] }) | null | undefined)?.[SINK_ORIGIN] ?? [];
}

/** Whether the owner of `sink` may receive an event of `audience` now (at emit, and again at delivery). */
export async function mayReceiveEvent(store: Store, sink: UserToolSummary, audience: EventAudience): Promise<boolean> {
  if (audience.kind === "owner") return sink.ownerId === audience.userId;
  const owner = await store.getUser(sink.ownerId);
  if (!owner) return false;
  if (owner.isAdmin) return true;
  if (audience.kind === "admins") return false;
  return audience.permission === null || (await store.permissionsOf(owner.id)).includes(audience.permission);
}

export function createEventBus(store: Store, logger: Logger): EventBus {
  const listeners: (() => void)[] = [];
  // Every saved tool's run emits tool.run before it answers: the active sinks, by event type, are
  // read once and kept while the store's change mark stands (a sink saved, changed or deleted moves it).
  const sinkIndex = createMarkCache<ReadonlyMap<string, readonly UserToolSummary[]>>(store.changeMark?.bind(store), 1);
  const sinksOf = async (type: string): Promise<readonly UserToolSummary[]> =>
    (await sinkIndex("sinks", async () => indexByType(await store.listSinks())))?.get(type) ?? [];
  const bus: EventBus = {
    async emitCommitted(input) {
      await bus.emit(input).catch((error: unknown) => logger.error("an event of a committed change could not be stored; sinks will not hear of it", { type: input.type, error }));
    },
    async emit(input) {
      const chain = sinkChainOf(input.cause);
      if (chain.length >= MAX_SINK_CHAIN) {
        logger.debug("event not delivered to sinks: caused by a chain of sinks", { type: input.type, chain: chain.length });
        return;
      }
      const sinks = (await sinksOf(input.type)).filter((s) => !chain.includes(s.id));
      const receivers: string[] = [];
      for (const sink of sinks) if (await mayReceiveEvent(store, sink, input.audience)) receivers.push(sink.id);
      // No receiver, nothing to deliver: the outbox holds events only for the sinks that will get them.
      if (receivers.length === 0) return;
      const event = { id: randomUUID(), type: input.type, at: new Date().toISOString(), data: input.data ?? null, ...(chain.length > 0 ? { causedBy: chain } : {}) };
      await store.appendEvent(event, receivers);
      logger.debug("event stored", { type: event.type, eventId: event.id, sinks: receivers.length });
      for (const listener of listeners) listener();
    },
    onStored: (listener) => void listeners.push(listener),
  };
  return bus;
}

function indexByType(sinks: readonly UserToolSummary[]): ReadonlyMap<string, readonly UserToolSummary[]> {
  const byType = new Map<string, UserToolSummary[]>();
  for (const sink of sinks) {
    for (const type of new Set(sink.events ?? [])) {
      const list = byType.get(type);
      if (list) list.push(sink);
      else byType.set(type, [sink]);
    }
  }
  return byType;
}
