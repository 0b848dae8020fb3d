import type { ServerResponse } from "node:http";
import type { ToolResult } from "../../sandbox/protocol.ts";
import { KnotError } from "../errors.ts";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
} as const;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, type = "text/plain; charset=utf-8"): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * An error answer: `{ error: <message>, code }`. Messages of KnotErrors are written for callers;
 * anything else was redacted before it got here.
 */
export function sendError(res: ServerResponse, error: KnotError, headers: Record<string, string> = {}): void {
  const extra: Record<string, string> = { ...headers };
  if (error.detail.retryAfterSeconds !== undefined) extra["retry-after"] = String(error.detail.retryAfterSeconds);
  sendJson(res, error.status, { error: error.message, code: error.code, ...(error.detail.where ? { where: error.detail.where } : {}) }, extra);
}

/** A handler's result over HTTP: text as text/plain, everything else as JSON. */
export function sendResult(res: ServerResponse, result: ToolResult): void {
  switch (result.kind) {
    case "text": case "toon": return sendText(res, 200, result.text);
    case "json": return sendJson(res, 200, result.value);
    case "content": return sendJson(res, 200, { content: result.content });
    case "none": return sendJson(res, 200, null);
  }
}
