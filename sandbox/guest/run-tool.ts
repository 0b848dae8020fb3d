/**
 * Why: the runner decides what a user tool answered, inside the guest, so that serialising the
 * answer (toJSON, getters, proxies, thenables) only ever runs guest code, and only the resulting
 * string reaches the worker. The worker's entry module calls runTool() with the tool's namespace.
 *
 * A tool's handler gets the request `{method, params, user}`; a sink's (job entry "sink", set by
 * the host) gets the event `{id, type, at, data}`.
 *
 * Rules: a return* wins (the worker keeps the last one); else the handler's (default export or
 * `main`) awaited value: a string → text, undefined/null → none (the worker answers with the
 * printed console output if there is any), anything else → JSON. A throw → its code if the
 * runtime made it (PERMISSION_DENIED…), else TOOL_ERROR with the message.
 */
import { GUEST_CAPS } from "./bindings.ts";
import * as I from "./intrinsics.ts";
import { clip, safeString } from "./intrinsics.ts";
import { checkResultSize, codeOf, codedError, fail, finish, finishReturned, freshParams, freshUser, hasReturned, isSinkRun, q } from "./runtime.ts";
import { GUEST_INPUT_PARAM } from "./bindings.ts";

type Handler = (request: unknown) => unknown;

function pickHandler(namespace: Record<string, unknown>): Handler | undefined {
  const main = namespace.default;
  if (typeof main === "function") return main as Handler;
  const named = namespace.main;
  return typeof named === "function" ? (named as Handler) : undefined;
}

export function errorMessage(error: unknown): string {
  if ((typeof error === "object" || typeof error === "function") && error !== null) {
    let message: unknown;
    try {
      message = (error as { message?: unknown }).message;
    } catch {
      message = undefined;
    }
    return typeof message === "string" && message !== "" ? message : "the tool threw a value that is not an Error";
  }
  return safeString(error, "the tool threw an error");
}

/** The engine's own out-of-memory error for buffers is the memory limit, not a tool bug. */
function errorCode(error: unknown, message: string): string {
  const code = codeOf(error);
  if (code !== undefined) return code;
  return error instanceof I.RangeError && message === "Array buffer allocation failed" ? "MEMORY_LIMIT" : "TOOL_ERROR";
}

function finishValue(value: unknown): void {
  if (typeof value === "string") {
    checkResultSize(value.length);
    finish(`{"ok":true,"result":{"kind":"text","text":${q(value)}}}`);
    return;
  }
  if (value === undefined || value === null) {
    finish('{"ok":true,"result":{"kind":"none"}}');
    return;
  }
  let json: string | undefined;
  try {
    json = I.JSONStringify(value);
  } catch {
    json = undefined;
  }
  if (typeof json !== "string") fail("TOOL_ERROR", "the result is not JSON-serialisable");
  checkResultSize(json.length);
  finish(`{"ok":true,"result":{"kind":"json","value":${json}}}`);
}

/** The arguments as the tool sees them: without the reserved input-round answers (read by ask() and friends only). */
function toolParams(): Record<string, unknown> {
  const params = freshParams();
  delete params[GUEST_INPUT_PARAM];
  return params;
}

export async function runTool(namespace: Record<string, unknown>): Promise<void> {
  let value: unknown;
  try {
    const handler = pickHandler(namespace);
    if (handler !== undefined) {
      // A sink's params are the event {id, type, at, data} (the worker checked the shape): it gets it as is.
      const argument = isSinkRun() ? freshParams() : { method: "CALL", params: toolParams(), user: freshUser() };
      value = await I.ReflectApply(handler, undefined, [argument]);
    }
  } catch (error) {
    if (hasReturned()) return finishReturned();
    const message = clip(errorMessage(error), GUEST_CAPS.errorMessageChars);
    return finish(`{"ok":false,"error":{"code":${q(errorCode(error, message))},"message":${q(message)}}}`);
  }
  if (hasReturned()) return finishReturned();
  try {
    finishValue(value);
  } catch {
    // fail() threw the return signal after reporting: nothing more to do
  }
}

/** What `import(x)` becomes (the worker rewrites it): dynamic import is never allowed. */
export function refuseDynamicImport(specifier: unknown): Promise<never> {
  const name = clip(safeString(specifier, "?"), 200);
  return I.PromiseReject(
    codedError(
      "MODULE_NOT_ALLOWED",
      `dynamic import("${name}") is not allowed in a user tool: import knot:*, plugin:<name> or lib:<name> statically`,
    ),
  );
}
