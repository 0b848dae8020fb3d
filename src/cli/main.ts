/**
 * `knot-tools <command>`: the command table and the one place errors become a single stderr line
 * and a non-zero exit (never a stack trace).
 */
import { KnotError } from "../errors.ts";
export type Command = (args: string[]) => Promise<number>;

/** Commands load on first use, so `users list` does not pay for the server, the SDKs and the sandbox. */
const lazy = <K extends string>(load: () => Promise<Record<K, Command>>, name: K): Command =>
  async (args) => (await load())[name](args);

export const COMMANDS: Record<string, Command> = {
  serve: lazy(() => import("./commands/serve.ts"), "serveCommand"),
  users: lazy(() => import("./commands/users.ts"), "usersCommand"),
  grant: lazy(() => import("./commands/grants.ts"), "grantCommand"),
  revoke: lazy(() => import("./commands/grants.ts"), "revokeCommand"),
  tokens: lazy(() => import("./commands/tokens.ts"), "tokensCommand"),
  plugins: lazy(() => import("./commands/plugins.ts"), "pluginsCommand"),
  mcp: lazy(() => import("./commands/mcp.ts"), "mcpCommand"),
  audit: lazy(() => import("./commands/audit.ts"), "auditCommand"),
  run: lazy(() => import("./commands/run.ts"), "runCommand"),
  tools: lazy(() => import("./commands/tools.ts"), "toolsCommand"),
};

const USAGE = `usage: knot-tools <command> [options]   (all commands take --db FILE)
  serve [--config FILE] [--plugins DIR] [--host H] [--port N]
  users add NAME [--admin] [--groups a,b] | users list
  grant USER|@GROUP PERMISSION | revoke USER|@GROUP PERMISSION
  tokens create USER [--name N] [--scopes a,b] [--no-write] [--expires 30d] | tokens list [USER] | tokens revoke ID
  plugins check DIR
  mcp --user NAME [--plugins DIR] [--config FILE]   (MCP over stdio)
  audit verify
  run FILE --user NAME [--args JSON] [--plugins DIR] [--config FILE]
  tools add FILE --user NAME [--name N] [--kind tool|lib] [--description D] [--share everyone|@group]`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(name && name !== "help" && name !== "--help" ? `knot-tools: unknown command "${name}"\n${USAGE}\n` : `${USAGE}\n`);
    return name && name !== "help" && name !== "--help" ? 2 : 0;
  }
  try {
    return await command(rest);
  } catch (error) {
    const message = error instanceof KnotError ? error.message : `unexpected error: ${(error as Error)?.message ?? String(error)}`;
    process.stderr.write(`knot-tools ${name}: ${message}\n`);
    return 1;
  }
}

/** Runs a command and exits with its code; long-running commands (serve, mcp) answer -1 and stay up. */
export async function runCli(argv: string[]): Promise<void> {
  const code = await main(argv);
  if (code !== -1) process.exit(code);
}

if (import.meta.main) await runCli(process.argv.slice(2));
