/**
 * The baseline for bench/mcp.ts: a bare MCP SDK v2 server (low-level Server) on node:http with the
 * same echo tool and no auth, resolver or audit, serving both revisions the way /mcp does:
 * 2026-07-28 requests through the SDK's per-request handler, 2025-11-25 through sessions.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, isLegacyRequest, Server } from "@modelcontextprotocol/server";
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";

const ECHO = {
  name: "echo", description: "Echo the text.",
  inputSchema: { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] },
};

function newServer(): Server {
  const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [ECHO] }));
  server.setRequestHandler("tools/call", async (request) => ({ content: [{ type: "text", text: String(request.params.arguments?.text ?? "") }] }));
  return server;
}

export async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const modern = createMcpHandler(() => newServer(), { legacy: "reject" });
  const modernNode = toNodeHandler(modern);
  const httpServer = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    if (req.method === "POST" && !(await isLegacyRequest(await toWebRequest(req, body), body))) return modernNode(req, res, body);
    const id = req.headers["mcp-session-id"];
    const existing = typeof id === "string" ? sessions.get(id) : undefined;
    if (existing) return existing.handleRequest(req, res, body);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    await newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await modern.close();
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
