import type { RunEvent, ToolResult } from "../../sandbox/protocol.ts";

/** The `knot:tool` context of one plugin tool call: its arguments and what it answered. */
export interface ToolState {
  readonly args: Readonly<Record<string, unknown>>;
  result: ToolResult | null;
  readonly emit: ((event: RunEvent) => void) | null;
  /** Asks the MCP client (sampling, elicitation) during an MCP call on a live session; null otherwise. */
  readonly ask: ToolAsk | null;
}

export type ToolAsk = (method: "sampling/createMessage" | "elicitation/create", params: Record<string, unknown>) => Promise<unknown>;

export function createToolState(args: Record<string, unknown>, emit: ToolState["emit"] = null, ask: ToolAsk | null = null): ToolState {
  return { args: Object.freeze({ ...args }), result: null, emit, ask };
}

/**
 * Thrown by `return*` to end the handler at once (knot: "a return* ends the run"). The call
 * boundary recognises it and answers with the state's result; the last `return*` wins.
 */
export class ToolReturn {
  readonly isToolReturn = true;
}

export function isToolReturn(value: unknown): value is ToolReturn {
  return value instanceof ToolReturn;
}
