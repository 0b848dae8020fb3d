/**
 * Why: what the guest runtime reports as a run's answer is checked again here, on the worker side
 * of the wall — the guest shares its realm with user code, so its reports are data, not truth.
 * Shapes are rebuilt from known fields only, sizes are measured in UTF-8 bytes, and only codes a
 * guest may report pass (anything else becomes INTERNAL).
 */
import type { ContentBlock, RunLimits, SafeError, ToolResult } from "../protocol.ts";
import { GUEST_REPORTABLE_CODES, safeError, type SandboxErrorCode } from "../errors.ts";
import type { WorkerVerdict } from "../ipc.ts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const optionalString = (value: unknown): value is string | undefined => value === undefined || typeof value === "string";

function contentBlock(value: unknown): ContentBlock | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.type) {
    case "text":
      return typeof value.text === "string" ? { type: "text", text: value.text } : undefined;
    case "image":
    case "audio":
      return typeof value.data === "string" && typeof value.mimeType === "string"
        ? { type: value.type, data: value.data, mimeType: value.mimeType }
        : undefined;
    case "resource": {
      const r = value.resource;
      if (!isRecord(r) || typeof r.uri !== "string" || !optionalString(r.mimeType) || !optionalString(r.text) || !optionalString(r.blob)) {
        return undefined;
      }
      return {
        type: "resource",
        resource: {
          uri: r.uri,
          ...(r.mimeType !== undefined ? { mimeType: r.mimeType } : {}),
          ...(r.text !== undefined ? { text: r.text } : {}),
          ...(r.blob !== undefined ? { blob: r.blob } : {}),
        },
      };
    }
    default:
      return undefined;
  }
}

/** A rebuilt ToolResult and its size in bytes, or undefined when the shape is wrong. */
function toolResult(value: unknown): { result: ToolResult; bytes: number } | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.kind) {
    case "none":
      return { result: { kind: "none" }, bytes: 0 };
    case "text":
    case "toon":
      return typeof value.text === "string"
        ? { result: { kind: value.kind, text: value.text }, bytes: Buffer.byteLength(value.text) }
        : undefined;
    case "json":
      return Object.hasOwn(value, "value")
        ? { result: { kind: "json", value: value.value }, bytes: Buffer.byteLength(JSON.stringify(value.value)) }
        : undefined;
    case "content": {
      if (!Array.isArray(value.content)) return undefined;
      const content: ContentBlock[] = [];
      for (const item of value.content) {
        const block = contentBlock(item);
        if (block === undefined) return undefined;
        content.push(block);
      }
      return { result: { kind: "content", content }, bytes: Buffer.byteLength(JSON.stringify(content)) };
    }
    default:
      return undefined;
  }
}

/** The engine's failed allocation, told as the limit it hit. */
export function memoryLimitError(limits: RunLimits, detail: string): SafeError {
  return safeError("MEMORY_LIMIT", `the tool went over its memory limit of ${limits.heapMb} MB (${detail.slice(0, 200)})`);
}

const malformed = (): WorkerVerdict => ({ ok: false, error: safeError("TOOL_ERROR", "the tool produced a malformed result") });

export function parseGuestVerdict(text: string, limits: RunLimits): WorkerVerdict {
  if (text.length > limits.resultBytes * 6 + 4_096) {
    return { ok: false, error: safeError("RESULT_TOO_LARGE", `the result is larger than ${limits.resultBytes} bytes`) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return malformed();
  }
  if (!isRecord(value)) return malformed();
  if (value.ok === true) {
    const checked = toolResult(value.result);
    if (checked === undefined) return malformed();
    if (checked.bytes > limits.resultBytes) {
      return { ok: false, error: safeError("RESULT_TOO_LARGE", `the result is larger than ${limits.resultBytes} bytes`) };
    }
    return { ok: true, result: checked.result };
  }
  if (value.ok === false && isRecord(value.error) && typeof value.error.message === "string") {
    const code = value.error.code;
    if (code === "MEMORY_LIMIT") return { ok: false, error: memoryLimitError(limits, value.error.message) };
    if (typeof code === "string" && GUEST_REPORTABLE_CODES.has(code)) {
      return { ok: false, error: safeError(code as SandboxErrorCode, value.error.message) };
    }
    return { ok: false, error: safeError("INTERNAL", "the guest runtime reported an unknown error code") };
  }
  return malformed();
}
