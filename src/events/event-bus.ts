/**
 * Emitting an event: decide which sinks may receive it, then write the event and one pending
 * delivery per sink to the store's outbox in one transaction (durable before `emit` resolves).
 *
 * Visibility, decided for each sink's *owner*: tool events reach only the tool owner's sinks; a
 * plugin event reaches owners who hold its declared permission (admins pass); `grant.changed`
 * reaches admins only. A sink's own effects never re-trigger it: an event emitted while a sink
 * run is the caller (its principal carries SINK_ORIGIN, through the loopback too) skips that sink.
 */
import { randomUUID } from "node:crypto";
import type { Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import type { Store, UserToolRecord } from "../store/store.ts";

/** Set on the principal a sink runs as; spreads keep it (the loopback token's principal is a copy). */
export const SINK_ORIGIN: unique symbol = Symbol("knot.sinkOrigin");

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
  /** Called after each stored event (the dispatcher wakes up). */
  onStored(listener: () => void): void;
}

export function sinkOriginOf(principal: Principal | null | undefined): string | null {
  return (principal as (Principal & { [SINK_ORIGIN]?: string }) | null | undefined)?.[SINK_ORIGIN] ?? null;
}

export function createEventBus(store: Store, logger: Logger): EventBus {
  const listeners: (() => void)[] = [];
  const mayReceive = async (sink: UserToolRecord, audience: EventAudience): Promise<boolean> => {
    if (audience.kind === "owner") return sink.ownerId === audience.userId;
    const owner = await store.getUser(sink.ownerId);
    if (!owner) return false;
    if (owner.isAdmin) return true;
    if (audience.kind === "admins") return false;
    return audience.permission === null || (await store.permissionsOf(owner.id)).includes(audience.permission);
  };
  return {
    async emit(input) {
      const origin = sinkOriginOf(input.cause);
      const sinks = (await store.listSinks()).filter((s) => s.events?.includes(input.type) && s.id !== origin);
      const receivers: string[] = [];
      for (const sink of sinks) if (await mayReceive(sink, input.audience)) receivers.push(sink.id);
      // No receiver, nothing to deliver: the outbox holds events only for the sinks that will get them.
      if (receivers.length === 0) return;
      const event = { id: randomUUID(), type: input.type, at: new Date().toISOString(), data: input.data ?? null };
      await store.appendEvent(event, receivers);
      logger.debug("event stored", { type: event.type, eventId: event.id, sinks: receivers.length });
      for (const listener of listeners) listener();
    },
    onStored: (listener) => void listeners.push(listener),
  };
}
