/**
 * `knot:tool` for plugin code: read the caller's arguments, set the response. The same names as
 * the user-sandbox module of the same specifier, so a handler reads the same on both sides.
 */
import type { ContentBlock, LogLine } from "../../../sandbox/protocol.ts";
import { KnotError } from "../../errors.ts";
import { currentContext } from "../call-context.ts";
import { encodeToon } from "../../results/toon.ts";
import type { InputMethod, InputRound } from "../../mcp/input-rounds.ts";
import { ToolReturn, type ToolState } from "../tool-state.ts";
import { readBool, readFloat, readInt, readList, readListOf, readString, type Reader } from "./arguments.ts";

function state(): ToolState {
  const tool = currentContext()?.tool;
  if (!tool) throw new KnotError("BAD_REQUEST", "knot:tool is only available while a tool call is running");
  return tool;
}

function getter<T>(reader: Reader<T>) {
  return (name: string, fallback?: T): T => {
    const value = state().args[name];
    if (value === undefined || value === null) {
      if (fallback !== undefined) return fallback;
      throw new KnotError("INVALID_ARGUMENT", `argument "${name}" is required`, { where: name });
    }
    return reader(value, name);
  };
}

export const getString = getter(readString);
export const getInt = getter(readInt);
export const getFloat = getter(readFloat);
export const getBool = getter(readBool);
export const getList = getter(readList);
export const getStringList = getter(readListOf(readString));
export const getIntList = getter(readListOf(readInt));
export const getFloatList = getter(readListOf(readFloat));
export const getBoolList = getter(readListOf(readBool));

function end(result: ToolState["result"]): never {
  state().result = result;
  throw new ToolReturn();
}

export function returnString(text: string): never {
  return end({ kind: "text", text: String(text) });
}
export function returnObject(value: unknown): never {
  return end({ kind: "json", value: JSON.parse(JSON.stringify(value ?? null)) });
}
export function returnToon(value: unknown): never {
  return end({ kind: "toon", text: encodeToon(value) });
}
export function returnContent(content: readonly ContentBlock[]): never {
  return end({ kind: "content", content: JSON.parse(JSON.stringify(content)) });
}
export function returnError(message: string): never {
  state().result = null;
  throw new KnotError("TOOL_ERROR", String(message));
}

export function progress(done: number, total?: number, message?: string): void {
  state().emit?.({ type: "progress", done: Number(done), ...(total === undefined ? {} : { total: Number(total) }), ...(message === undefined ? {} : { message: String(message) }) });
}

export function log(level: LogLine["level"], message: string): void {
  const known = ["debug", "info", "warn", "error"] as const;
  const lvl = known.includes(level) ? level : "info";
  state().emit?.({ type: "log", level: lvl, message: String(message) });
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
