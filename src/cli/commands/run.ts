import fs from "node:fs";
import path from "node:path";
import { createApp } from "../../app.ts";
import { KnotError } from "../../errors.ts";
import { silentLogger } from "../../log.ts";
import { runOutcomeJson } from "../../tools/run-outcome.ts";
import { assertJsonDepth } from "../../validation/json-depth.ts";
import { COMMON_OPTIONS, parse, requireExistingDatabase, resolveConfig, usageError } from "../context.ts";

/**
 * `run FILE --user NAME [--args JSON]`: runs a user tool file through the real sandbox and a real
 * loopback (a server on 127.0.0.1:<free port>) as that user; one JSON line on stdout.
 */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, user: { type: "string" }, args: { type: "string" } });
  const [file] = positionals;
  if (!file || !values.user) throw usageError("run FILE --user NAME [--args JSON]");
  let code: string;
  try {
    code = fs.readFileSync(file, "utf8");
  } catch {
    throw new KnotError("NOT_FOUND", `cannot read ${file}`);
  }
  let toolArgs: unknown = {};
  if (values.args !== undefined) {
    try {
      toolArgs = JSON.parse(values.args);
    } catch {
      throw usageError("--args must be a JSON object, e.g. --args '{\"word\":\"hi\"}'");
    }
  }
  if (typeof toolArgs !== "object" || toolArgs === null || Array.isArray(toolArgs)) throw usageError("--args must be a JSON object");
  assertJsonDepth(toolArgs, "--args");

  const config = { ...resolveConfig(values), host: "127.0.0.1", port: 0 };
  requireExistingDatabase(config.database);
  // Its events stay in the outbox for the server to deliver.
  const app = await createApp(config, { logger: silentLogger, deliverSinks: false });
  try {
    const user = await app.store.getUserByName(values.user);
    if (!user) throw new KnotError("NOT_FOUND", `no user named "${values.user}"`);
    const principal = (await app.auth.principalFor(user.id, "cli"))!;
    await app.listen();
    const name = path.basename(file).replace(/\.[^.]+$/, "").replace(/[^A-Za-z0-9_-]/g, "_") || "tool";
    const outcome = await app.runner.run(principal, { name, code, language: file.endsWith(".ts") ? "ts" : "js" }, toolArgs as Record<string, unknown>, { validated: true });
    const { durationMs: _omit, ...json } = runOutcomeJson(outcome);
    process.stdout.write(`${JSON.stringify(json)}\n`);
    return outcome.ok ? 0 : 1;
  } finally {
    await app.close();
  }
}
