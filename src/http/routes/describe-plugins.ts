import { assetUrl } from "./navigation-routes.ts";
import type { PluginRegistry } from "../../plugins/registry.ts";
import { pluginAreas } from "../../plugins/plugin-areas.ts";

/** Everything an admin needs to see about the plugins folder: declarations, failures, warnings. */
export function describePlugins(registry: PluginRegistry) {
  return {
    root: registry.root,
    loaded: [...registry.loaded.values()].map((plugin) => ({
      name: plugin.name,
      version: plugin.manifest.version,
      description: plugin.manifest.description,
      api: plugin.manifest.api,
      requires: plugin.manifest.requires,
      permissions: plugin.manifest.permissions,
      handlers: plugin.manifest.handlers,
      mcpTools: plugin.manifest.mcpTools,
      pages: plugin.manifest.pages,
      exports: plugin.manifest.exports.map((e) => ({ ...e, specifier: `plugin:${plugin.name}/${e.stem}` })),
      clientModules: plugin.clientModules?.specifiers ?? [],
      config: plugin.manifest.config,
      peers: plugin.peers?.health() ?? [],
      menus: plugin.manifest.menus,
      icons: plugin.manifest.icons.map((file) => ({ file, url: assetUrl(plugin.name, file) })),
      logoLight: plugin.manifest.logoLight,
      logoDark: plugin.manifest.logoDark,
      fieldHandlers: plugin.manifest.fieldHandlers,
      dependencies: plugin.manifest.dependencies,
      libs: [...plugin.libs].map(([stem, version]) => ({ stem, version })),
      /** Handlers and MCP tools grouped by their `area`. */
      areas: pluginAreas(plugin.name, plugin.manifest).map(({ area, handlers, mcpTools, write }) => ({ area, handlers, mcpTools, write })),
    })),
    disabled: registry.disabled,
    failed: registry.failed.map((f) => ({ name: f.name, reason: f.reason, problems: f.problems })),
    warnings: registry.warnings,
  };
}
