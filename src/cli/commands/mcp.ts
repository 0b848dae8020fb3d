import { createApp } from "../../app.ts";
import { claimStdout } from "../claim-stdout.ts";
import { KnotError } from "../../errors.ts";
import { COMMON_OPTIONS, parse, requireExistingDatabase, resolveConfig, usageError } from "../context.ts";

/**
 * `knot-tools mcp --user NAME`: the same MCP tools over stdio for a local client, acting as NAME
 * (who must hold knot.mcp; admins pass). stdout carries only MCP messages; logs (and anything a
 * plugin prints) go to stderr. The
 * HTTP server still listens on 127.0.0.1 (a free port) because user tools' loopback calls need it.
 */
export async function mcpCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON_OPTIONS, user: { type: "string" } });
  if (!values.user) throw usageError("mcp --user NAME [--db FILE] [--plugins DIR] [--config FILE]");
  const config = { ...resolveConfig(values), host: "127.0.0.1", port: 0 };
  requireExistingDatabase(config.database);
  // Before any plugin loads: whatever else writes to stdout (a plugin's console.log) goes to stderr.
  const protocolOut = claimStdout();
  const app = await createApp(config);
  let connection: Awaited<ReturnType<typeof app.mcp.connectStdio>>;
  try {
    const user = await app.store.getUserByName(values.user);
    if (!user) throw new KnotError("NOT_FOUND", `no user named "${values.user}"`);
    await app.listen();
    connection = await app.mcp.connectStdio(user.id, { input: process.stdin, output: protocolOut });
  } catch (error) {
    await app.close();
    throw error;
  }
  // As at stdin's end, the calls still running may finish (within the shutdown grace) and their
  // replies are written; a second Ctrl-C stops at once. stdin's end needs no handler here: the line
  // transport closes itself once the replies still owed at EOF are written.
  const stop = () => connection.drain(config.shutdownGraceMs);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  void connection.closed.then(() => app.close()).then(() => process.exit(0), () => process.exit(1));
  return -1;
}
