import fs from "node:fs";
import path from "node:path";
import { KnotError } from "../../errors.ts";
import type { ServerConfig } from "../../config.ts";
import { BUILTIN_EVENT_TYPES } from "../../events/builtin-event-types.ts";
import { checkSubscriptions } from "../../events/event-types.ts";
import { loadPlugins } from "../../plugins/loader.ts";
import { PluginRegistry } from "../../plugins/registry.ts";
import { RUNTIME_VERSION } from "../../version.ts";
import { withAdmin } from "../admin-context.ts";
import { COMMON_OPTIONS, parse, usageError } from "../context.ts";

/**
 * `tools add FILE --user NAME [--name N] [--kind tool|lib|sink] [--events a,b] [--description D] [--share everyone|@group]`:
 * stores a file as the user's tool (a new version when the name exists). Local admin action.
 * A sink's `--events` are checked like the API checks them (plugin event types against the plugins folder).
 * Saved through the admin layer: `tool.saved` (by the user) goes into the store's outbox like the
 * API's (a server's dispatcher delivers it) and the tool-list change is published on the change bus.
 */
export async function toolsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...COMMON_OPTIONS, user: { type: "string" }, name: { type: "string" }, kind: { type: "string" },
    description: { type: "string" }, share: { type: "string" }, events: { type: "string" },
  });
  const [action, file] = positionals;
  if (action !== "add" || !file || !values.user) throw usageError("tools add FILE --user NAME [--name N] [--kind tool|lib|sink] [--events a,b] [--share everyone|@group]");
  let code: string;
  try {
    code = fs.readFileSync(file, "utf8");
  } catch {
    throw new KnotError("NOT_FOUND", `cannot read ${file}`);
  }
  return withAdmin(values, async ({ admin, config }) => {
    const user = await admin.users.named(values.user!);
    const tool = await admin.tools.save(user, {
      name: values.name ?? path.basename(file).replace(/\.[^.]+$/, ""), code, language: file.endsWith(".ts") ? "ts" : "js",
      ...(values.kind !== undefined ? { kind: values.kind } : {}),
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.share !== undefined ? { sharing: values.share } : {}),
      ...(values.events !== undefined ? { events: values.events.split(",").map((e) => e.trim()).filter((e) => e !== "") } : {}),
    }, (events) => checkCliSubscriptions(config, events));
    process.stdout.write(`${tool.id}\n`);
    return 0;
  });
}

/** Plugin event types need the plugins' declarations: load them only when one is named. */
async function checkCliSubscriptions(config: ServerConfig, events: readonly string[]): Promise<void> {
  if (events.every((e) => BUILTIN_EVENT_TYPES.includes(e))) return checkSubscriptions(new PluginRegistry("", [], [], []), events);
  const registry = await loadPlugins({ root: config.pluginsDir, runtimeVersion: RUNTIME_VERSION, pluginConfig: config.plugins });
  try {
    checkSubscriptions(registry, events);
  } finally {
    await registry.close();
  }
}
