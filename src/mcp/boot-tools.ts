/**
 * The built-in tools every MCP caller has, ahead of user and plugin tools in the namespace:
 * `tool_search` (for large tool sets) and `execute_tool` (call one by name), plus the authoring
 * tools. Both meta tools work only through the resolver, so they can never reach a tool the
 * caller could not list and call directly.
 */
import type { Principal } from "../identity/principal.ts";
import type { UserToolsCatalog } from "../tools/user-tools.ts";
import { authoringTools } from "./authoring-tools.ts";
import { errorResult, toolResult } from "./results.ts";
import type { CallToolResult } from "./sdk.ts";
import type { BootTool, CallContext } from "./tool-types.ts";

/** What the meta tools need from the surface, bound after the resolver exists. */
export interface BootToolHost {
  listed(principal: Principal): Promise<readonly { name: string; description: string; inputSchema: object; kind: string }[]>;
  call(ctx: CallContext, name: string, args: unknown): Promise<CallToolResult>;
}

export function createBootTools(catalog: UserToolsCatalog, host: () => BootToolHost): BootTool[] {
  const open = () => null;
  const toolSearch: BootTool = {
    name: "tool_search",
    description: "Search the tools you may use by words in their names and descriptions; answers the best matches with their input schemas (call one with execute_tool or directly).",
    parameters: [],
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Words to look for, e.g. \"export metrics\"." },
        limit: { type: "integer", description: "At most this many results.", default: 10, minimum: 1, maximum: 50 },
      },
      required: ["query"],
    },
    readOnly: true, destructive: false, gate: open,
    async run(ctx, args) {
      const words = String(args.query).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
      const scored = (await host().listed(ctx.principal))
        .filter((tool) => tool.name !== "tool_search")
        .map((tool, order) => ({ tool, order, score: score(words, tool.name.toLowerCase(), tool.description.toLowerCase()) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || a.order - b.order);
      const limit = Number(args.limit ?? 10);
      return toolResult({ kind: "json", value: { total: scored.length, tools: scored.slice(0, limit).map((entry) => entry.tool) } });
    },
  };
  const executeTool: BootTool = {
    name: "execute_tool",
    description: "Call one of the tools you may use by name, with its arguments (useful after tool_search).",
    parameters: [],
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool's name." },
        arguments: { type: "object", description: "The tool's arguments.", default: {} },
      },
      required: ["name"],
    },
    readOnly: false, destructive: false, gate: open,
    async run(ctx, args) {
      if (args.name === "execute_tool" || ctx.depth > 0) return errorResult("BAD_REQUEST", "execute_tool cannot call execute_tool");
      return host().call({ ...ctx, depth: ctx.depth + 1 }, String(args.name), args.arguments ?? {});
    },
  };
  return [toolSearch, executeTool, ...authoringTools(catalog)];
}

/** A word found in the name counts three times one found in the description. */
function score(words: readonly string[], name: string, description: string): number {
  let total = 0;
  for (const word of words) total += (name.includes(word) ? 3 : 0) + (description.includes(word) ? 1 : 0);
  return total;
}
