/**
 * A raw 2026-07-28 MCP client for tests: each request carries the `_meta` envelope and the routing
 * headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name), with no initialize and no session.
 */
export const MODERN = "2026-07-28";

export interface ModernReply {
  readonly status: number;
  readonly headers: Headers;
  /** Every JSON-RPC message in the answer (one JSON body, or the SSE stream's frames). */
  readonly messages: any[];
  /** The final response (the message carrying the request's id). */
  readonly response: any;
}

let nextId = 1;

export async function modernCall(url: string, token: string, method: string, params: Record<string, unknown> = {}, options: {
  capabilities?: Record<string, unknown>; logLevel?: string; headers?: Record<string, string>;
} = {}): Promise<ModernReply> {
  const id = nextId++;
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": options.capabilities ?? {},
    "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "2.0.0" },
    ...(options.logLevel ? { "io.modelcontextprotocol/logLevel": options.logLevel } : {}),
  };
  const name = typeof params.name === "string" ? { "mcp-name": params.name } : {};
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`,
      "mcp-protocol-version": MODERN, "mcp-method": method, ...name, ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...(params._meta as object | undefined), ..._meta } } }),
  });
  const text = await res.text();
  const messages = text.trimStart().startsWith("{")
    ? [JSON.parse(text)]
    : text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).filter(Boolean).map((data) => JSON.parse(data));
  return { status: res.status, headers: res.headers, messages, response: messages.find((m) => m.id === id) };
}
