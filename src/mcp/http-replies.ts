/** Small pieces of the /mcp HTTP handler: JSON-RPC error answers, body parsing, auditing refusals. */
import type { ServerResponse } from "node:http";
import { clampText } from "../audit/audit-bounds.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import type { Principal } from "../identity/principal.ts";
import { isUsableId } from "./jsonrpc-shapes.ts";

/** JSON-RPC codes used before a message reaches the SDK. */
const RPC_CODES: Record<number, number> = { 400: -32600, 401: -32001, 403: -32001, 404: -32001, 405: -32000, 413: -32600 };

/**
 * An HTTP error with a JSON-RPC body; `data.code` is the knot-tools error code. `id` is the
 * request's own when it could be read (JSON-RPC asks for it: null only when it could not).
 */
export function rpcError(
  res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}, rpcCode?: number,
  extra: { id?: string | number | null; data?: Record<string, unknown> } = {},
): void {
  const text = JSON.stringify({ jsonrpc: "2.0", error: { code: rpcCode ?? RPC_CODES[status] ?? -32000, message, data: { ...extra.data, code } }, id: extra.id ?? null });
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A JSON-RPC error answering one request (HTTP 200, as the SDK answers invalid params). */
export function rpcErrorFor(res: ServerResponse, id: unknown, rpcCode: number, message: string, data: Record<string, unknown>): void {
  const text = JSON.stringify({ jsonrpc: "2.0", id: isUsableId(id) ? id : null, error: { code: rpcCode, message, data } });
  res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export const UNREADABLE = Symbol("unreadable");

/** The POST body parsed as JSON, or UNREADABLE after answering a parse error (the server refused an oversized body). */
export function parseJsonRpc(res: ServerResponse, body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch {
    rpcError(res, 400, "INVALID_JSON", "Parse error: the body is not valid JSON", {}, -32700);
    return UNREADABLE;
  }
}

function messages(body: unknown): Record<string, unknown>[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null);
}

export function isInitialize(body: unknown): boolean {
  return messages(body).some((m) => m.method === "initialize");
}

/** The tool a refused call names, as text: a value that is not a name is not turned into one (a deep array's String() overflows the stack). */
function nameOf(params: Record<string, unknown>): string {
  const name = params.name;
  if (name === undefined || name === null) return "";
  if (typeof name === "string" || typeof name === "number" || typeof name === "boolean") return String(name);
  return "[not a name]";
}

/**
 * Audits the tool calls in a request refused before it reached the SDK: one row per request, never
 * one per message, so a refused batch cannot flood the log. All argument values are masked: the
 * caller was not allowed to learn which of them the tool declares secret.
 */
export async function auditRefusedCalls(audit: AuditLog, principal: Principal, body: unknown, outcome: string, requestId: string): Promise<void> {
  const calls = messages(body).filter((message) => message.method === "tools/call").map((message) =>
    (typeof message.params === "object" && message.params !== null ? message.params : {}) as Record<string, unknown>);
  if (calls.length === 0) return;
  if (calls.length > 1) {
    const tools = calls.slice(0, 8).map((params) => clampText(nameOf(params)));
    await audit.record({ principal, surface: "mcp", tool: "[batch]", args: { calls: calls.length, tools }, outcome, durationMs: 0, requestId });
    return;
  }
  const params = calls[0]!;
  const args = typeof params.arguments === "object" && params.arguments !== null && !Array.isArray(params.arguments) ? params.arguments as Record<string, unknown> : {};
  await audit.record({
    principal, surface: "mcp", tool: nameOf(params), args, masked: Object.keys(args), outcome, durationMs: 0, requestId,
  });
}
