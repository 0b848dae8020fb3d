/**
 * `knot-tools <command>`: the command table and the one place errors become a single stderr line
 * and a non-zero exit (never a stack trace).
 */
import { KnotError } from "../errors.ts";
import { grantCommand, revokeCommand } from "./commands/grants.ts";
import { pluginsCommand } from "./commands/plugins.ts";
import { serveCommand } from "./commands/serve.ts";
import { tokensCommand } from "./commands/tokens.ts";
import { usersCommand } from "./commands/users.ts";

export type Command = (args: string[]) => Promise<number>;

export const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  users: usersCommand,
  grant: grantCommand,
  revoke: revokeCommand,
  tokens: tokensCommand,
  plugins: pluginsCommand,
};

const USAGE = `usage: knot-tools <command> [options]   (all commands take --db FILE)
  serve [--config FILE] [--plugins DIR] [--host H] [--port N]
  users add NAME [--admin] [--groups a,b] | users list
  grant USER|@GROUP PERMISSION | revoke USER|@GROUP PERMISSION
  tokens create USER [--name N] [--scopes a,b] [--no-write] [--expires 30d] | tokens list [USER] | tokens revoke ID
  plugins check DIR`;

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
