import fs from "node:fs";
import path from "node:path";
import { KnotError } from "../../errors.ts";
import { openStore } from "../../store/index.ts";
import type { ServerConfig } from "../../config.ts";
import { createEventBus } from "../../events/event-bus.ts";
import { BUILTIN_EVENT_TYPES, checkSubscriptions } from "../../events/event-types.ts";
import { toolEvent } from "../../events/product-events.ts";
import { silentLogger } from "../../log.ts";
import { loadPlugins } from "../../plugins/loader.ts";
import { PluginRegistry } from "../../plugins/registry.ts";
import { pinLibs } from "../../tools/lib-pins.ts";
import { parseUserToolInput } from "../../tools/user-tool-input.ts";
import { RUNTIME_VERSION } from "../../version.ts";
import { COMMON_OPTIONS, parse, resolveConfig, usageError } from "../context.ts";

/**
 * `tools add FILE --user NAME [--name N] [--kind tool|lib|sink] [--events a,b] [--description D] [--share everyone|@group]`:
 * stores a file as the user's tool (a new version when the name exists). Local admin action.
 * A sink's `--events` are checked like the API checks them (plugin event types against the plugins folder).
 * Emits `tool.saved` (by the user) into the store's outbox like the API: a server's dispatcher delivers it.
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
  const store = await openStore({ path: resolveConfig(values).database });
  try {
    const user = await store.getUserByName(values.user);
    if (!user) throw new KnotError("NOT_FOUND", `no user named "${values.user}"`);
    const name = values.name ?? path.basename(file).replace(/\.[^.]+$/, "");
    const existing = await store.findUserToolByName(user.id, name);
    const input = parseUserToolInput({
      name, code, language: file.endsWith(".ts") ? "ts" : "js",
      ...(values.kind !== undefined ? { kind: values.kind } : {}),
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.share !== undefined ? { sharing: values.share } : {}),
      ...(values.events !== undefined ? { events: values.events.split(",").map((e) => e.trim()).filter((e) => e !== "") } : {}),
    }, existing ?? undefined);
    if (input.events) await checkCliSubscriptions(resolveConfig(values), input.events);
    // Pin its lib: imports as the API does (names already pinned keep their pin).
    const { pins } = await pinLibs(store, { id: user.id, groups: await store.groupsOf(user.id) }, input.code, input.language, existing?.libPins ?? null);
    const pinned = { ...input, libPins: pins };
    const tool = existing ? await store.updateUserTool(existing.id, user.id, pinned) : await store.createUserTool(user.id, pinned);
    await createEventBus(store, silentLogger).emit(toolEvent("tool.saved", tool, user.name, null));
    process.stdout.write(`${tool.id}\n`);
    return 0;
  } finally {
    await store.close();
  }
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
