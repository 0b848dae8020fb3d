/**
 * Limits on a `/mcp` POST, checked as soon as its body is read and before anything else looks at
 * it: the MCP permission check, auditing, the SDK (issue 10 item 10).
 *
 * Threat: one POST carrying thousands of JSON-RPC messages made the server write an audit row
 * for each (synchronously) and then hand them all to the SDK, stalling the event loop for
 * seconds. Guarantee: the body is read under the route's limit by the HTTP server (413 before a
 * byte past it is buffered; src/http/routes/mcp-route.ts),
 * and a batch of more than MAX_BATCH_MESSAGES messages is refused with 413 PAYLOAD_TOO_LARGE
 * before any of them is audited or parsed further. The handler then writes at most one audit row
 * for a refused request (http-replies.ts `auditRefusedCalls`).
 */
import type { ServerResponse } from "node:http";
import { parseJsonRpc, rpcError, UNREADABLE } from "./http-replies.ts";

/** MCP clients send one message per POST (batches left the protocol in 2025-06-18); a few are tolerated. */
export const MAX_BATCH_MESSAGES = 32;

/** The POST body parsed, or UNREADABLE after answering the refusal (JSON, batch length). */
export function parseLimitedMcpBody(res: ServerResponse, raw: Buffer): unknown {
  const body = parseJsonRpc(res, raw);
  if (body === UNREADABLE) return UNREADABLE;
  if (Array.isArray(body) && body.length > MAX_BATCH_MESSAGES) {
    rpcError(res, 413, "PAYLOAD_TOO_LARGE", `a JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages, not ${body.length}`, { connection: "close" }, -32600);
    return UNREADABLE;
  }
  return body;
}
