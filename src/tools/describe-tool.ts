import type { Principal } from "../identity/principal.ts";
import type { UserToolRecord, UserToolSummary } from "../store/store.ts";
import { callableName } from "./tool-names.ts";

/**
 * A user tool as the API and the authoring tools show it: the code only when asked for (single-tool
 * reads; a listing has none to give); `callAs` is its name over MCP for this caller.
 */
export function describeUserTool(principal: Principal, tool: UserToolSummary | UserToolRecord, withCode = false) {
  const { code, ...rest } = tool as UserToolSummary & { code?: string };
  return { ...rest, mine: tool.ownerId === principal.user.id, callAs: callableName(principal.user.id, tool), ...(withCode && code !== undefined ? { code } : {}) };
}
