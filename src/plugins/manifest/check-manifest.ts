/**
 * Validates a parsed metadata document against the plugin format (docs/plugins.md "The metadata block") and builds the
 * qualified PluginManifest. `api` is checked first: a block written for another api version
 * is not checked further, since its keys may mean something else.
 */
import type { PluginManifest } from "../manifest-types.ts";
import { checkKnownKeys, describeValue, isTable, readString } from "./checks.ts";
import type { Report, TomlTable } from "./checks.ts";
import { checkEvents } from "./check-events.ts";
import { checkHandlers, checkPages } from "./check-handlers.ts";
import { checkMcpTools } from "./check-mcp-tools.ts";
import { checkChangeMarks } from "./check-change-marks.ts";
import { checkConfigKeys, checkExports, checkPermissionIds, checkRuntimeRange, checkVersion } from "./check-plugin-fields.ts";
import { checkDependencies } from "./check-dependencies.ts";
import { checkNavigation, NAVIGATION_KEYS } from "./check-navigation.ts";
import { qualifyPermission } from "./declaration-context.ts";
import type { KeyPath } from "./key-path.ts";

export const SUPPORTED_API = 1;
const TOP_LEVEL_KEYS = ["requires-runtime", "tool"];
const TOOL_KEYS = ["knot"];
const KNOT_KEYS = ["api", "version", "description", "requires", "permissions", "handlers", "mcp_tools", "pages", "export", "config", "events", ...NAVIGATION_KEYS];
const KNOT_PATH: KeyPath = ["tool", "knot"];

export interface ManifestCheckInput {
  readonly pluginName: string;
  readonly document: TomlTable;
  readonly runtimeVersion: string;
  readonly report: Report;
  readonly lineOf: (path: KeyPath) => number;
}

/** Returns the manifest, or null; a null or any reported problem means the plugin must not load. */
export function checkManifestDocument(input: ManifestCheckInput): PluginManifest | null {
  const { document, report } = input;
  const knot = findKnotTable(document);
  if (knot && knot["api"] !== undefined && knot["api"] !== SUPPORTED_API) {
    report([...KNOT_PATH, "api"], `: unsupported api ${describeValue(knot["api"])}; this runtime supports api ${SUPPORTED_API}`);
    return null;
  }
  checkKnownKeys(document, TOP_LEVEL_KEYS, [], report);
  checkToolTable(document, report);
  const requires = checkRuntimeRange(document, knot, input.runtimeVersion, report);
  if (!knot) return null;

  checkKnownKeys(knot, KNOT_KEYS, KNOT_PATH, report);
  const version = checkVersion(knot, KNOT_PATH, report);
  const description = readString(knot, "description", KNOT_PATH, report) ?? "";
  const permissions = checkPermissionIds(knot, KNOT_PATH, report);
  const context = { pluginName: input.pluginName, report, lineOf: input.lineOf, declaredPermissions: permissions.declared };
  const handlers = checkHandlers(knot, KNOT_PATH, context);
  const mcpTools = checkMcpTools(knot, KNOT_PATH, context, handlers);
  const pages = checkPages(knot, KNOT_PATH, context);
  checkChangeMarks(knot, KNOT_PATH, context);
  const exports = checkExports(knot, KNOT_PATH, report);
  const config = checkConfigKeys(knot, KNOT_PATH, report);
  const events = checkEvents(knot, KNOT_PATH, context);
  const navigation = checkNavigation(knot, KNOT_PATH, context, handlers, pages);
  const dependencies = checkDependencies(knot, KNOT_PATH, context);
  if (version === undefined) return null;
  return {
    name: input.pluginName,
    api: SUPPORTED_API,
    version,
    description,
    requires,
    permissions: permissions.ids.map((id) => qualifyPermission(input.pluginName, id)),
    handlers,
    mcpTools,
    exports,
    config,
    events,
    ...navigation,
    dependencies,
  };
}

function findKnotTable(document: TomlTable): TomlTable | undefined {
  const tool = document["tool"];
  if (!isTable(tool)) return undefined;
  const knot = tool["knot"];
  return isTable(knot) ? knot : undefined;
}

function checkToolTable(document: TomlTable, report: Report): void {
  const tool = document["tool"];
  if (tool === undefined) {
    report(KNOT_PATH, "is required: declare the plugin in a [tool.knot] table");
    return;
  }
  if (!isTable(tool)) {
    report(["tool"], `must be a table (got ${describeValue(tool)})`);
    return;
  }
  checkKnownKeys(tool, TOOL_KEYS, ["tool"], report);
  if (tool["knot"] === undefined) report(KNOT_PATH, "is required: declare the plugin in a [tool.knot] table");
  else if (!isTable(tool["knot"])) report(KNOT_PATH, `must be a table (got ${describeValue(tool["knot"])})`);
}
