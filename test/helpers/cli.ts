import { spawn, spawnSync } from "node:child_process";
import path from "node:path";

export const CLI = path.resolve(import.meta.dirname, "../../src/cli/main.ts");
export const BIN = path.resolve(import.meta.dirname, "../../bin/knot-tools.js");

/** The arguments of a Node process running `knot-tools ARGS` (the flags every Node start of this project needs). */
export function cliArgs(args: readonly string[]): string[] {
  return ["--no-node-snapshot", "--disable-warning=ExperimentalWarning", CLI, ...args];
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `knot-tools ARGS` to completion in `cwd`. */
export function cli(args: string[], options: { cwd?: string; input?: string } = {}): CliResult {
  const result = spawnSync(process.execPath, cliArgs(args), {
    cwd: options.cwd, encoding: "utf8", input: options.input, timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts a long-running command (serve, mcp); resolves once `ready` matches its stdout. */
export function cliDaemon(args: string[], ready: RegExp, options: { cwd?: string } = {}) {
  const child = spawn(process.execPath, cliArgs(args), { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const started = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      if (ready.test(stdout)) resolve(stdout);
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before ready: ${stderr}`)));
  });
  return {
    child, started,
    output: () => ({ stdout, stderr }),
    stop: () => new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      child.once("exit", (code) => resolve(code));
      child.kill("SIGTERM");
    }),
  };
}
