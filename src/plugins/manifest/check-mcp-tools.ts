/**
 * `[[tool.knot.mcp_tools]]`: tools an MCP client can list and call, with their parameters
 * turned into the JSON Schema the client receives (or a raw `input_schema`: input-schema.ts), and
 * the read_only / destructive / write marks.
 */
import type { HandlerDecl, McpToolDecl } from "../manifest-types.ts";
import { checkKnownKeys, describeValue, readBool, readString, readTableArray } from "./checks.ts";
import type { TomlTable } from "./checks.ts";
import { HANDLER_NAME_RULE, readChangeMarks, requirePermission } from "./check-handlers.ts";
import { TOOL_NAME, TOOL_NAME_MAX } from "../../../sandbox/guest/names.ts";
import { readArea, readPermissionRef } from "./declaration-context.ts";
import type { DeclarationContext } from "./declaration-context.ts";
import { parametersToJsonSchema } from "./json-schema.ts";
import { checkInputSchema } from "./input-schema.ts";
import { checkParameterDecls } from "./parameters.ts";
import type { KeyPath } from "./key-path.ts";

const MCP_TOOL_KEYS = ["name", "description", "handler", "permission", "read_only", "destructive", "write", "parameters", "input_schema", "area"];

/** `handlers` are the plugin's declared handlers: a tool without an `area` takes its handler's. */
export function checkMcpTools(knot: TomlTable, path: KeyPath, context: DeclarationContext, handlers: readonly HandlerDecl[] = []): McpToolDecl[] {
  const tools: McpToolDecl[] = [];
  const seenNames = new Set<string>();
  for (const element of readTableArray(knot, "mcp_tools", path, context.report)) {
    const tool = checkMcpTool(element.table, element.path, context, handlers);
    if (tool === null) continue;
    const namePath = element.table["name"] === undefined ? "handler" : "name";
    if (seenNames.has(tool.name)) {
      context.report([...element.path, namePath], `repeats the tool name ${describeValue(tool.name)}`);
      continue;
    }
    seenNames.add(tool.name);
    tools.push(tool);
  }
  return tools;
}

function checkMcpTool(table: TomlTable, path: KeyPath, context: DeclarationContext, handlers: readonly HandlerDecl[]): McpToolDecl | null {
  const { report } = context;
  checkKnownKeys(table, MCP_TOOL_KEYS, path, report);
  const handler = readString(table, "handler", path, report, { required: true, ...HANDLER_NAME_RULE });
  const name = readToolName(table, handler, path, context);
  const description = readString(table, "description", path, report, { required: true, nonEmpty: true });
  const permission = readPermissionRef(table, path, context);
  const readOnly = readBool(table, "read_only", path, report) ?? false;
  const area = readArea(table, path, context);
  const changes = readChangeMarks(table, path, context);
  const destructive = changes === "destructive";
  const write = changes !== null;
  if (readOnly && write) {
    report([...path, "read_only"], `cannot be combined with ${destructive ? "destructive" : "write"} = true`);
  }
  if (changes !== null && permission === null) requirePermission(path, changes, "tool", context);
  // Whether its marks agree with the handler's is check-change-marks.ts's to say.
  const served = handlers.find((h) => h.handler === handler);
  const parameters = checkParameterDecls(table["parameters"], [...path, "parameters"], report);
  const raw = table["input_schema"] === undefined ? undefined : checkInputSchema(table["input_schema"], [...path, "input_schema"], report);
  if (raw !== undefined && table["parameters"] !== undefined) {
    report([...path, "input_schema"], "cannot be combined with parameters: declare the arguments in one of them");
  }
  if (handler === undefined || name === undefined || description === undefined || permission === undefined || raw === null) return null;
  return {
    name,
    description,
    handler,
    permission,
    parameters,
    readOnly,
    destructive,
    write,
    inputSchema: raw?.schema ?? parametersToJsonSchema(parameters),
    headerParams: raw?.headers ?? [],
    // A tool without its own area is in its handler's.
    area: area ?? served?.area ?? null,
    line: context.lineOf(path),
  };
}

/** `name`, or the handler's name when absent; either way a valid MCP tool name. */
function readToolName(table: TomlTable, handler: string | undefined, path: KeyPath, context: DeclarationContext): string | undefined {
  const explicit = table["name"] !== undefined;
  const name = explicit ? readString(table, "name", path, context.report) : handler;
  if (name === undefined) return undefined;
  const namePath = [...path, explicit ? "name" : "handler"];
  const problem = !TOOL_NAME.test(name)
    ? "letters, digits, _ and - only, starting with a letter or digit"
    : name.length > TOOL_NAME_MAX
      ? `at most ${TOOL_NAME_MAX} characters`
      : null;
  if (problem === null) return name;
  const hint = explicit ? "" : "; the tool name defaults to the handler, so set name = \"…\"";
  context.report(namePath, `${explicit ? "must be" : "is used as the tool name, which must be"} a valid tool name: ${problem} (got ${describeValue(name)})${hint}`);
  return undefined;
}
