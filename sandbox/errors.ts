/**
 * Why: a run that fails must tell the caller *what* tripped, in a form that is safe to show a user
 * or an MCP client. This table is the one place a sandbox error code is declared. Anything that
 * leaves the sandbox is a `SafeError` ({code, message}): no stack, no host path, no token.
 */
import type { SafeError } from "./protocol.ts";

export const SANDBOX_ERROR_CODES = Object.freeze({
  TOOL_TIMEOUT: "the run did not finish by its wall-clock deadline (`limits.wall_ms`, 30 s)",
  CPU_LIMIT: "the run used more CPU time than its budget (`limits.cpu_ms`, 5 s)",
  MEMORY_LIMIT: "the run (or its worker process) went over its memory limit (`limits.heap_mb`, 64 MB)",
  RESULT_TOO_LARGE: "the result is larger than `limits.result_bytes` (1 MB)",
  LOOPBACK_LIMIT: "more `knot:plugin` calls than `limits.loopback_calls` (100)",
  MODULE_NOT_ALLOWED: "an import that is unknown or not permitted to user tools, or a member the module does not export (\"identifier not found: X in plugin:Y\"), or a module graph over a run's bounds (64 modules, 1 MiB of code: \"import \"lib:x\" is too large: …\")",
  SYNTAX_ERROR: "the tool's (or an imported module's) source does not parse",
  TOOL_ERROR: "the tool reported an error (`returnError`) or threw one",
  INVALID_ARGUMENT: "a `knot:tool` getter could not read an argument: missing without a default, or not the asked type (the message names it; catchable as `e.code === \"INVALID_ARGUMENT\"`)",
  PERMISSION_DENIED: "a `knot:plugin` call was refused by the handler's gate",
  NOT_ADDRESSABLE: "a `knot:plugin` call named no declared handler",
  LOOPBACK_FAILED: "a `knot:plugin` call failed for another reason",
  WORKER_CRASHED: "the sandbox worker process died or was killed while holding the run",
  CANCELLED: "the run was cancelled (the client went away or cancelled the MCP request)",
  INTERNAL: "an unexpected failure inside the sandbox",
} as const);

export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES;

/** Codes the guest runtime may report for itself; anything else it claims becomes INTERNAL. */
export const GUEST_REPORTABLE_CODES: ReadonlySet<string> = new Set<SandboxErrorCode>([
  "TOOL_ERROR",
  "INVALID_ARGUMENT",
  "RESULT_TOO_LARGE",
  "MEMORY_LIMIT",
  "MODULE_NOT_ALLOWED",
  "PERMISSION_DENIED",
  "NOT_ADDRESSABLE",
  "LOOPBACK_FAILED",
  "LOOPBACK_LIMIT",
]);

const MAX_MESSAGE_CHARS = 2_000;

/** The only way a sandbox error is built: a known code and a bounded, single-purpose message. */
export function safeError(code: SandboxErrorCode, message: string): SafeError {
  const text = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  return Object.freeze({ code, message: text });
}

export function isSandboxErrorCode(code: unknown): code is SandboxErrorCode {
  return typeof code === "string" && Object.hasOwn(SANDBOX_ERROR_CODES, code);
}
