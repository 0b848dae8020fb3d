import type { RunEvent, ToolResult } from "../../sandbox/protocol.ts";
import type { InputRound } from "../mcp/input-rounds.ts";

/** The `knot:tool` context of one plugin tool call: its arguments and what it answered. */
export interface ToolState {
  readonly args: Readonly<Record<string, unknown>>;
  result: ToolResult | null;
  readonly emit: ((event: RunEvent) => void) | null;
  /** The answers of this MCP call's input rounds (`ask()`, `elicit()`, `sample()`); null outside an MCP call. */
  readonly input: InputRound | null;
}

export function createToolState(args: Record<string, unknown>, emit: ToolState["emit"] = null, input: InputRound | null = null): ToolState {
  return { args: Object.freeze({ ...args }), result: null, emit, input };
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
