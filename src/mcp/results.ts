/**
 * Results as MCP clients receive them (docs/plugins.md "Handlers", docs/user-tools.md): a `return*` wins; a string is text; anything
 * else is JSON text (and `structuredContent` when it is an object); content blocks pass through
 * after a shape check. A failure is a result with `isError: true` carrying only a coded, safe
 * message: never a stack, path or host detail.
 */
import type { ContentBlock, ToolResult } from "../../sandbox/protocol.ts";
import { KnotError } from "../errors.ts";
import type { CallToolResult, McpContentBlock } from "./sdk.ts";

/** `_meta` key holding the error code of an `isError` result. */
export const ERROR_CODE_META = "knot-tools/errorCode";

export function toolResult(result: ToolResult): CallToolResult {
  switch (result.kind) {
    case "text": case "toon": return { content: [{ type: "text", text: result.text }] };
    case "none": return { content: [] };
    case "json": {
      const text = JSON.stringify(result.value) ?? "null";
      const structured = isPlainObject(result.value) ? { structuredContent: result.value } : {};
      return { content: [{ type: "text", text }], ...structured };
    }
    case "content": {
      const blocks = result.content.map(contentBlock);
      if (blocks.some((b) => b === null)) return errorResult("TOOL_ERROR", "the tool returned a content block that is not a valid text, image, audio or resource block");
      return { content: blocks as McpContentBlock[] };
    }
  }
}

/** `_meta` key naming the argument an INVALID_ARGUMENT result is about. */
export const WHERE_META = "knot-tools/where";

const RETRY_AFTER_META = "knot-tools/retryAfterSeconds";

export function errorResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true, _meta: { [ERROR_CODE_META]: code } };
}

/** A thrown error as a tool failure: KnotErrors keep their code and message, anything else is INTERNAL. */
export function thrownResult(error: unknown): CallToolResult {
  const retryAfter = error instanceof KnotError ? error.detail.retryAfterSeconds : undefined;
  if (error instanceof KnotError && retryAfter !== undefined) {
    // RATE_LIMITED: the assistant is told when to try again, in the text and machine-readably.
    const result = errorResult(String(error.code), `${error.message} (retry after ${retryAfter} s)`);
    return { ...result, _meta: { ...result._meta, [RETRY_AFTER_META]: retryAfter } };
  }
  if (error instanceof KnotError) return errorResult(String(error.code), error.message);
  return errorResult("INTERNAL", "internal error");
}

/** The value whose `summary` key the audit log keeps. */
export function summaryValue(result: ToolResult): unknown {
  return result.kind === "json" ? result.value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === "string";

/** Rebuilds one block from known fields only, or null when its shape is wrong. */
function contentBlock(block: ContentBlock): McpContentBlock | null {
  const b = block as unknown as Record<string, unknown>;
  if (!isPlainObject(b)) return null;
  if (b.type === "text") return isString(b.text) ? { type: "text", text: b.text } : null;
  if (b.type === "image" || b.type === "audio") {
    return isString(b.data) && isString(b.mimeType) ? { type: b.type, data: b.data, mimeType: b.mimeType } : null;
  }
  if (b.type === "resource" && isPlainObject(b.resource)) {
    const r = b.resource;
    if (!isString(r.uri) || (r.mimeType !== undefined && !isString(r.mimeType))) return null;
    const mime = r.mimeType === undefined ? {} : { mimeType: r.mimeType as string };
    if (isString(r.text)) return { type: "resource", resource: { uri: r.uri, ...mime, text: r.text } };
    if (isString(r.blob)) return { type: "resource", resource: { uri: r.uri, ...mime, blob: r.blob } };
  }
  return null;
}
