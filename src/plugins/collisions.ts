/**
 * MCP tool names are one namespace across plugins: in plugin-name (folder) order the first owner wins and
 * a later plugin declaring one of its names fails whole. Settled only among plugins still
 * loading, so a plugin that fails for another reason never holds a name.
 */
import { BOOT_TOOL_NAMES } from "../mcp/boot-tool-names.ts";
import type { DeclaredPlugin } from "./dependencies.ts";
import type { PluginProblem } from "./registry.ts";

export function settleCollisions<T extends DeclaredPlugin>(plugins: readonly T[]): { kept: T[]; rejected: Map<T, PluginProblem[]> } {
  const owners = new Map<string, string>();
  const kept: T[] = [];
  const rejected = new Map<T, PluginProblem[]>();
  for (const plugin of plugins) {
    const clashes = plugin.manifest.mcpTools.filter((tool) => owners.has(tool.name));
    if (clashes.length > 0) {
      rejected.set(plugin, clashes.map((tool) => ({
        code: "PLUGIN_COLLISION", where: `${plugin.name}: tool.knot.mcp_tools.name`, line: tool.line,
        message: `plugin "${plugin.name}": MCP tool "${tool.name}" (main.js line ${tool.line}) is already provided by plugin "${owners.get(tool.name)}"`,
      })));
      continue;
    }
    for (const tool of plugin.manifest.mcpTools) owners.set(tool.name, plugin.name);
    kept.push(plugin);
  }
  return { kept, rejected };
}

/** A plugin MCP tool named like a boot tool would be shadowed for every caller: refused before import. */
export function bootToolClashes(plugin: DeclaredPlugin): PluginProblem[] {
  return plugin.manifest.mcpTools.filter((tool) => BOOT_TOOL_NAMES.includes(tool.name)).map((tool) => ({
    code: "PLUGIN_COLLISION", where: `${plugin.name}: tool.knot.mcp_tools.name`, line: tool.line,
    message: `plugin "${plugin.name}": MCP tool "${tool.name}" (main.js line ${tool.line}) is the name of a built-in MCP tool, which every caller sees instead: rename it`,
  }));
}
