/**
 * `knot:tool` for plugin code: read the caller's arguments, set the response. The same names as
 * the user-sandbox module of the same specifier, so a handler reads the same on both sides.
 */
import type { ContentBlock, LogLine } from "../../../sandbox/protocol.ts";
import { KnotError } from "../../errors.ts";
import { currentContext } from "../call-context.ts";
import { encodeToon } from "../../../sandbox/guest/toon.ts";
import { copyContent } from "../../../sandbox/guest/content.ts";
import {
  errorMessage, logLevelProblem, logText, notSerialisable, progressProblem, RETURN_STRING_REFUSED, returnedJson, returnedText, type OutputLogLevel,
} from "../../../sandbox/guest/output-rules.ts";
import type { InputMethod, InputRound } from "../../mcp/input-rounds.ts";
import { ToolReturn, type ToolState } from "../tool-state.ts";
import { pluginArgumentGetters } from "./arguments.ts";

function state(): ToolState {
  const tool = currentContext()?.tool;
  if (!tool) throw new KnotError("BAD_REQUEST", "knot:tool is only available while a tool call is running");
  return tool;
}

const args = pluginArgumentGetters(state);

export const { getString, getInt, getFloat, getBool, getList, getStringList, getIntList, getFloatList, getBoolList } = args;

function end(result: ToolState["result"]): never {
  state().result = result;
  throw new ToolReturn();
}

/** A refusal by the shared output rules (sandbox/guest/output-rules.ts), coded as in a user tool. */
const refused = (message: string) => new KnotError("TOOL_ERROR", message);

export function returnString(text: string): never {
  const value = returnedText(text);
  if (value === null) throw refused(RETURN_STRING_REFUSED);
  return end({ kind: "text", text: value });
}
export function returnObject(value: unknown): never {
  const json = returnedJson(value);
  if (json === null) throw refused(notSerialisable("returnObject"));
  return end({ kind: "json", value: JSON.parse(json) });
}
export function returnToon(value: unknown): never {
  let text: string;
  try {
    text = encodeToon(value);
  } catch {
    // the same refusal as in a user tool (sandbox/guest/tool.ts)
    throw refused(notSerialisable("returnToon"));
  }
  return end({ kind: "toon", text });
}
export function returnContent(content: readonly ContentBlock[]): never {
  let blocks: ContentBlock[];
  try {
    // The user tool's check and copy: known fields of the MCP content shapes only.
    blocks = copyContent(content) as unknown as ContentBlock[];
  } catch (error) {
    throw refused((error as Error).message);
  }
  return end({ kind: "content", content: blocks });
}
export function returnError(message: string): never {
  state().result = null;
  throw refused(errorMessage(message));
}

export function progress(done: number, total?: number, message?: string): void {
  const problem = progressProblem(done, total, message);
  if (problem !== null) throw refused(problem);
  state().emit?.({ type: "progress", done, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) });
}

export function log(level: LogLine["level"], message: string): void {
  const problem = logLevelProblem(level);
  if (problem !== null) throw refused(problem);
  state().emit?.({ type: "log", level: level as OutputLogLevel, message: logText(message) });
}

function round(what: string): InputRound {
  const input = state().input;
  if (!input) throw new KnotError("BAD_REQUEST", `${what} is only available during an MCP tool call`);
  return input;
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;

/**
 * Answers to several questions at once: `{ key: { method, params } }` with method
 * "elicitation/create", "sampling/createMessage" or "roots/list". Answers them all when the client
 * has; otherwise the call ends as "input required" and the handler runs again, from the start,
 * once the client has answered (so code before it should be safe to run twice).
 */
export async function input(requests: Record<string, { method: InputMethod; params?: Record<string, unknown> }>): Promise<Record<string, unknown>> {
  const asked = Object.fromEntries(Object.entries(requests).map(([key, r]) => [String(key), { method: r.method, params: copy(r.params ?? {}) }]));
  return copy(round("input()").take(asked));
}

/** Asks the person behind the MCP client for input (MCP elicitation): answers `{ action, content? }`. */
export async function elicit(message: string, requestedSchema: Record<string, unknown>): Promise<{ action: string; content?: Record<string, unknown> }> {
  const r = round("elicit()");
  const key = r.nextKey("elicit");
  const answers = r.take({ [key]: { method: "elicitation/create", params: { message: String(message), requestedSchema: copy(requestedSchema) } } });
  return copy(answers[key]) as { action: string; content?: Record<string, unknown> };
}

/** Asks the person a question (elicitation): the accepted content, or null when they declined or cancelled. */
export async function ask(message: string, requestedSchema: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  const answer = await elicit(message, requestedSchema);
  return answer.action === "accept" ? answer.content ?? {} : null;
}

/**
 * Asks the MCP client's model for a completion (MCP sampling), e.g.
 * `await sample({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 100 })`.
 */
export async function sample(params: Record<string, unknown>): Promise<unknown> {
  const r = round("sample()");
  const key = r.nextKey("sample");
  return copy(r.take({ [key]: { method: "sampling/createMessage", params: copy(params) } })[key]);
}

/** The client's roots (MCP roots/list): `[{ uri, name? }]`. */
export async function listRoots(): Promise<unknown[]> {
  const r = round("listRoots()");
  const key = r.nextKey("roots");
  return copy((r.take({ [key]: { method: "roots/list", params: {} } })[key] as { roots: unknown[] }).roots);
}

/** Whether the MCP client declared it can answer this kind of question. */
export function clientSupports(capability: "elicitation" | "sampling" | "roots"): boolean {
  return state().input?.supports(capability) ?? false;
}
