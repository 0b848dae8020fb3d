/**
 * The event types a sink may subscribe to: the product's own, and those plugins declare in
 * `[[tool.knot.events]]` (qualified `plugin.<name>.<type>`). Who may receive each is decided in
 * event-bus.ts from the event's audience.
 */
import { PLUGIN_EVENT_TYPE } from "../../sandbox/guest/names.ts";
import { KnotError } from "../errors.ts";
import { BUILTIN_EVENT_TYPES } from "./builtin-event-types.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { EventDecl } from "../plugins/manifest-types.ts";
import type { EventAudience } from "./event-bus.ts";

/** A plugin event's declaration, or null. */
export function pluginEventDecl(registry: PluginRegistry, type: string): EventDecl | null {
  const plugin = PLUGIN_EVENT_TYPE.exec(type)?.[1];
  return (plugin && registry.loaded.get(plugin)?.manifest.events.find((e) => e.type === type)) || null;
}

/**
 * Who may receive an event of `type` addressed to a sink of `ownerId`, judged again when it is
 * delivered (the same audiences the emitters use); null for a type no longer known (a plugin
 * removed), which nobody receives.
 */
export function deliveryAudience(registry: PluginRegistry, type: string, ownerId: string): EventAudience | null {
  if (type === "grant.changed") return { kind: "admins" };
  if (BUILTIN_EVENT_TYPES.includes(type)) return { kind: "owner", userId: ownerId }; // tool events go to the tool owner's sinks only
  const decl = pluginEventDecl(registry, type);
  return decl ? { kind: "permission", permission: decl.permission } : null;
}

/** Refuses at save a sink subscribing to an unknown type, naming it. */
export function checkSubscriptions(registry: PluginRegistry, events: readonly string[]): void {
  for (const [index, type] of events.entries()) {
    if (!BUILTIN_EVENT_TYPES.includes(type) && !pluginEventDecl(registry, type)) {
      const known = [...BUILTIN_EVENT_TYPES, ...[...registry.loaded.values()].flatMap((p) => p.manifest.events.map((e) => e.type))];
      throw new KnotError("INVALID_ARGUMENT", `events[${index}]: unknown event type "${type}" (known: ${known.join(", ")})`, { where: `events[${index}]` });
    }
  }
}
