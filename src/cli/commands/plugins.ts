import fs from "node:fs";
import path from "node:path";
import { KnotError } from "../../errors.ts";
import { loadPlugins } from "../../plugins/loader.ts";
import { RUNTIME_VERSION } from "../../version.ts";
import { COMMON_OPTIONS, parse, resolveConfig, usageError } from "../context.ts";

/** `plugins check DIR`: exit 0 when every plugin loads; else one line per problem on stderr. */
export async function pluginsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMON_OPTIONS);
  const [action, dir] = positionals;
  if (action !== "check" || !dir) throw usageError("plugins check DIR");
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new KnotError("NOT_FOUND", `no plugins folder at ${path.resolve(dir)}`);
  const config = resolveConfig({ ...values, plugins: dir });
  const registry = await loadPlugins({ root: path.resolve(dir), runtimeVersion: RUNTIME_VERSION, pluginConfig: config.plugins });
  for (const warning of registry.warnings) process.stderr.write(`warning: ${warning}\n`);
  for (const failure of registry.failed) {
    for (const problem of failure.problems) process.stderr.write(`${failure.name}: ${problem.code}: ${problem.message}\n`);
  }
  for (const plugin of registry.loaded.values()) {
    const { manifest } = plugin;
    const navigation = manifest.menus.length + manifest.fieldHandlers.length > 0 ? `, ${manifest.menus.length} menus, ${manifest.fieldHandlers.length} field handlers` : "";
    process.stdout.write(`ok ${plugin.name} ${manifest.version}: ${manifest.handlers.length} handlers, ${manifest.mcpTools.length} MCP tools, ${manifest.exports.length} exports${navigation}\n`);
  }
  for (const name of registry.disabled) process.stdout.write(`disabled ${name} (enabled = false in the server config)\n`);
  await registry.close(); // peers started for the check
  return registry.failed.length === 0 ? 0 : 1;
}
