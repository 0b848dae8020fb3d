/**
 * The server's own check of `Mcp-Param-*` headers on a 2026-07-28 `tools/call` (SEP-2243; the
 * rules are in ../validation/mcp-param-headers.ts). Only plugin tools can declare `x-mcp-header`
 * (in a raw `input_schema`), so a call naming no such tool costs one map lookup. The tool is
 * resolved as the caller: a tool hidden from them is not checked here, and the call path then
 * answers "Unknown tool" exactly as for any hidden tool, so the 400 reveals nothing.
 */
import type { IncomingMessage } from "node:http";
import type { Principal } from "../identity/principal.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import { paramHeaderMismatch } from "../validation/mcp-param-headers.ts";
import type { ToolResolver } from "./resolver.ts";

/** Why the request's headers disagree with its body, or null (also for anything but such a call). */
export type ParamHeaderCheck = (principal: Principal, body: unknown, req: IncomingMessage) => Promise<string | null>;

export function createParamHeaderCheck(registry: PluginRegistry, resolver: ToolResolver): ParamHeaderCheck {
  return async (principal, body, req) => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
    const message = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
    if (message.method !== "tools/call" || typeof message.params?.name !== "string") return null;
    const declared = registry.mcpTool(message.params.name);
    if (!declared || declared.decl.headerParams.length === 0) return null;
    const found = await resolver.resolve(principal, message.params.name);
    if (found.tool?.kind !== "plugin" || found.tool.plugin.decl !== declared.decl) return null;
    return paramHeaderMismatch(declared.decl.headerParams, message.params.arguments, (name) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : value;
    });
  };
}
