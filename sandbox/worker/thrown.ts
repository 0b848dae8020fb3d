/**
 * Turns what an isolate task threw (isolated-vm hands the worker a copy: an Error with the same
 * type and message, or a primitive) into a SafeError. Only the message is kept — never the stack.
 * A message the guest runtime registered as a coded error (PERMISSION_DENIED…) keeps its code; the
 * engine's failed buffer allocation is the memory limit; the rest is TOOL_ERROR.
 */
import type { RunLimits, SafeError } from "../protocol.ts";
import { safeError, type SandboxErrorCode } from "../errors.ts";
import { memoryLimitError } from "./guest-verdict.ts";

/** isolated-vm's text when the guest threw something that is not an Error (it names the library). */
const NOT_AN_ERROR_PREFIX = "An object was thrown from supplied code within isolated-vm";

export function classifyThrown(error: unknown, codedMessages: ReadonlyMap<string, string>, limits: RunLimits): SafeError {
  const raw = error instanceof Error ? error.message : typeof error === "string" ? error : String(error);
  const message = raw.startsWith(NOT_AN_ERROR_PREFIX) ? "the tool threw a value that is not an Error" : raw;
  const coded = codedMessages.get(message);
  if (coded !== undefined) return safeError(coded as SandboxErrorCode, message);
  if (error instanceof RangeError && message === "Array buffer allocation failed") {
    return memoryLimitError(limits, message);
  }
  return safeError("TOOL_ERROR", message === "" ? "the tool threw an error" : message);
}
