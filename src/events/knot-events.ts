/**
 * `knot:events` for plugin code: `emit(type, data)` for an event type the calling plugin declares
 * in `[[tool.knot.events]]` (written unqualified, `order_placed`, or qualified,
 * `plugin.shop.order_placed`). The event is stored in the outbox before `emit` resolves; sinks
 * whose owners hold the declared permission receive it.
 */
import { KnotError } from "../errors.ts";
import { currentContext, type PluginCaller } from "../plugins/call-context.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { EventBus } from "./event-bus.ts";

const bound = new WeakMap<PluginCaller, { bus: EventBus; registry: PluginRegistry }>();

/** Wires a pool's plugin code to an event bus (the composition root does this once). */
export function bindPluginEvents(pool: PluginCaller, registry: PluginRegistry, bus: EventBus): void {
  bound.set(pool, { bus, registry });
}

export async function emit(type: string, data: unknown = null): Promise<void> {
  const context = currentContext();
  const wiring = context && bound.get(context.pool);
  if (!context?.plugin || !wiring) throw new KnotError("BAD_REQUEST", "knot:events.emit is only available while a plugin handler is running");
  const qualified = String(type).startsWith("plugin.") ? String(type) : `plugin.${context.plugin}.${String(type)}`;
  const decl = wiring.registry.loaded.get(context.plugin)?.manifest.events.find((e) => e.type === qualified);
  if (!decl) throw new KnotError("INVALID_ARGUMENT", `plugin "${context.plugin}" does not declare the event type "${type}" in [[tool.knot.events]]`, { where: "type" });
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(data ?? null));
  } catch {
    throw new KnotError("INVALID_ARGUMENT", "event data must be JSON-serialisable", { where: "data" });
  }
  await wiring.bus.emit({ type: qualified, data: json, audience: { kind: "permission", permission: decl.permission }, cause: context.principal });
}
