/**
 * `tools/call` with `arguments` that is not an object: the SDK would answer its schema library's
 * raw error dump. Arguments nested deeper than MAX_JSON_DEPTH: the SDK's recursive schema check
 * overflows the stack on them (a bare 500, no audit row). Before a message reaches the SDK, such
 * arguments are set aside (replaced by `{}`) and handed back to call-tool by request id, which
 * answers a clean INVALID_ARGUMENT and audits the call with the arguments' shape cut to the limit.
 */
import { jsonDepth, MAX_JSON_DEPTH } from "../validation/json-depth.ts";

export type SetAside = Map<string | number, unknown>;

/** Sets aside non-object or too deep `arguments` of the tools/call messages in `body` (one message or a batch). */
export function setAsideBadArguments(body: unknown, into: SetAside): unknown {
  const fix = (message: unknown): unknown => {
    if (typeof message !== "object" || message === null || Array.isArray(message)) return message;
    const m = message as Record<string, unknown>;
    const params = m.params as Record<string, unknown> | undefined;
    if (m.method !== "tools/call" || typeof params !== "object" || params === null || !("arguments" in params)) return message;
    const args = params.arguments;
    const isObject = typeof args === "object" && args !== null && !Array.isArray(args);
    if (args === undefined || (isObject && jsonDepth(args, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH)) return message;
    if (typeof m.id === "string" || typeof m.id === "number") into.set(m.id, args);
    return { ...m, params: { ...params, arguments: {} } };
  };
  return Array.isArray(body) ? body.map(fix) : fix(body);
}

/** A message's nesting outside its tool arguments (envelope, `_meta`, input responses) stays far below this. */
export const MAX_MESSAGE_DEPTH = 2 * MAX_JSON_DEPTH;

/**
 * Whether a message (after `setAsideBadArguments`) nests deeper than MAX_MESSAGE_DEPTH somewhere else
 * than its arguments (in params, in `_meta`): the SDK's recursive checks would overflow the stack on it.
 */
export function tooDeepForSdk(body: unknown): boolean {
  return jsonDepth(body, MAX_MESSAGE_DEPTH) > MAX_MESSAGE_DEPTH;
}

/**
 * Why a `tools/call` message cannot name a tool (params not an object, `name` not a non-empty
 * string), or null: answered here in a sentence naming the field, where the SDK would answer its
 * schema library's raw dump.
 */
export function malformedToolCall(message: unknown): { where: string; problem: string } | null {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return null;
  const m = message as Record<string, unknown>;
  if (m.method !== "tools/call") return null;
  const params = m.params;
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    return { where: "params", problem: `params must be an object with the tool's name and arguments (got ${params === undefined ? "nothing" : JSON.stringify(params)?.slice(0, 40)})` };
  }
  const name = (params as Record<string, unknown>).name;
  if (typeof name !== "string" || name === "") {
    return { where: "params.name", problem: `params.name must be the tool's name, a non-empty string (got ${name === undefined ? "nothing" : JSON.stringify(name)?.slice(0, 40)})` };
  }
  return null;
}
