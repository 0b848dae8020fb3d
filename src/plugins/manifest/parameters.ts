/**
 * Validates declared tool parameters (`[[tool.knot.mcp_tools.parameters]]` in a plugin, and the
 * same list on user tools). Parameters become the tool's JSON Schema, which is what arguments are
 * checked against, so a default or enum that contradicts its type is refused here.
 */
import { isDeepStrictEqual } from "node:util";
import { KnotError } from "../../errors.ts";
import type { ErrorCode } from "../../errors.ts";
import type { ParameterDecl, ParameterType } from "../manifest-types.ts";
import { IDENTIFIER } from "../../../sandbox/guest/names.ts";
import { checkKnownKeys, describeValue, isTable, readBool, readString } from "./checks.ts";
import type { Report, TomlTable } from "./checks.ts";
import { parametersToJsonSchema } from "./json-schema.ts";
import { formatKeyPath } from "./key-path.ts";
import type { KeyPath } from "./key-path.ts";

export const PARAMETER_TYPES: readonly ParameterType[] = ["string", "int", "float", "bool", "list"];

/**
 * Bounds on what becomes a JSON Schema that ajv compiles on the event loop (issue 10 item 7:
 * 2,500 required parameters stalled the server for seconds and overflowed ajv's stack). Measured
 * here: 64 parameters compile in a few ms; the schema-size cap bounds enums and defaults too.
 * A raw `input_schema` (input-schema.ts) has the same size cap and nests at most maxSchemaDepth.
 */
export const PARAMETER_LIMITS = Object.freeze({ maxParameters: 64, maxEnumValues: 256, maxValueDepth: 16, maxSchemaBytes: 64 * 1024, maxSchemaDepth: 32 });
/** Names every JavaScript object already answers to: as parameters they confuse validation and defaults. */
const RESERVED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
const PARAMETER_KEYS = ["name", "type", "description", "required", "default", "enum", "secret", "personal"];

const TYPE_NOUNS: Record<ParameterType, string> = {
  string: "a string",
  int: "an integer",
  float: "a finite number",
  bool: "true or false",
  list: "an array",
};

export function matchesParameterType(type: ParameterType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "int":
      return typeof value === "number" && Number.isInteger(value);
    case "float":
      return typeof value === "number" && Number.isFinite(value);
    case "bool":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
  }
}

/**
 * Checks a list of parameter tables found at `path`, reporting every problem; absent → [].
 * Returns the parameters that could be read (only meaningful when nothing was reported).
 */
export function checkParameterDecls(raw: unknown, path: KeyPath, report: Report): ParameterDecl[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    report(path, `must be an array of tables (got ${describeValue(raw)})`);
    return [];
  }
  // Before looking at any element: a huge list is refused in constant time.
  if (raw.length > PARAMETER_LIMITS.maxParameters) {
    report(path, `: at most ${PARAMETER_LIMITS.maxParameters} parameters per tool (got ${raw.length})`);
    return [];
  }
  const names = new Set<string>();
  const params: ParameterDecl[] = [];
  raw.forEach((element: unknown, index) => {
    const elementPath = [...path, index];
    if (!isTable(element)) {
      report(elementPath, `must be a table (got ${describeValue(element)})`);
      return;
    }
    const { name, param } = checkParameter(element, elementPath, report);
    if (name !== undefined && names.has(name)) report([...elementPath, "name"], `repeats parameter name ${describeValue(name)}`);
    if (name !== undefined) names.add(name);
    if (param) params.push(param);
  });
  const bytes = Buffer.byteLength(JSON.stringify(parametersToJsonSchema(params)));
  if (bytes > PARAMETER_LIMITS.maxSchemaBytes) {
    report(path, `: the schema these parameters make is ${bytes} bytes; at most 64 KiB (${PARAMETER_LIMITS.maxSchemaBytes} bytes) per tool`);
  }
  return params;
}

/** The parameter, or null when a problem was reported; `name` whenever it is readable (for repeats). */
function checkParameter(table: TomlTable, path: KeyPath, report: Report): { name: string | undefined; param: ParameterDecl | null } {
  checkKnownKeys(table, PARAMETER_KEYS, path, report);
  let name = readString(table, "name", path, report, {
    required: true,
    pattern: IDENTIFIER,
    patternName: "an identifier ([A-Za-z_][A-Za-z0-9_]*)",
  });
  if (name !== undefined && RESERVED_NAMES.has(name)) {
    report([...path, "name"], `must not be ${describeValue(name)}: every JavaScript object has a property of that name`);
    name = undefined;
  }
  const type = readType(table, path, report);
  const description = readString(table, "description", path, report) ?? "";
  const required = readBool(table, "required", path, report) ?? false;
  const secret = readBool(table, "secret", path, report) ?? false;
  const personal = readBool(table, "personal", path, report) ?? false;
  const enumValues = type ? readEnum(table, type, path, report) : undefined;
  const defaultValue = table["default"];
  if (defaultValue !== undefined && type) {
    if (tooDeep(defaultValue)) {
      report([...path, "default"], `nests deeper than ${PARAMETER_LIMITS.maxValueDepth} levels`);
    } else if (!matchesParameterType(type, defaultValue)) {
      report([...path, "default"], `must be ${TYPE_NOUNS[type]} to match type "${type}" (got ${describeValue(defaultValue)})`);
    } else if (enumValues && !enumValues.some((value) => isDeepStrictEqual(value, defaultValue))) {
      report([...path, "default"], `must be one of the enum values (got ${describeValue(defaultValue)})`);
    }
    if (required) report([...path, "default"], "cannot be combined with required = true (a required parameter has no default)");
  }
  if (name === undefined || type === undefined) return { name, param: null };
  const param: ParameterDecl = {
    name,
    type,
    description,
    required,
    ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    ...(enumValues !== undefined ? { enum: enumValues } : {}),
    secret,
    personal,
  };
  return { name, param };
}

/** Whether a value nests arrays/objects deeper than the limit (iterative: no recursion to overflow). */
function tooDeep(value: unknown): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= PARAMETER_LIMITS.maxValueDepth) return true;
    for (const child of Object.values(current)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

function readType(table: TomlTable, path: KeyPath, report: Report): ParameterType | undefined {
  const value = table["type"];
  if (value === undefined) return "string";
  if (typeof value === "string" && (PARAMETER_TYPES as readonly string[]).includes(value)) return value as ParameterType;
  report([...path, "type"], `must be one of ${PARAMETER_TYPES.join(", ")} (got ${describeValue(value)})`);
  return undefined;
}

function readEnum(table: TomlTable, type: ParameterType, path: KeyPath, report: Report): unknown[] | undefined {
  const value = table["enum"];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    report([...path, "enum"], `must be a non-empty array (got ${Array.isArray(value) ? "an empty array" : describeValue(value)})`);
    return undefined;
  }
  if (value.length > PARAMETER_LIMITS.maxEnumValues) {
    report([...path, "enum"], `has ${value.length} values; at most ${PARAMETER_LIMITS.maxEnumValues}`);
    return undefined;
  }
  if (value.some((element: unknown) => tooDeep(element))) {
    report([...path, "enum"], `has a value nesting deeper than ${PARAMETER_LIMITS.maxValueDepth} levels`);
    return undefined;
  }
  value.forEach((element: unknown, index) => {
    if (!matchesParameterType(type, element)) {
      report([...path, "enum", index], `must be ${TYPE_NOUNS[type]} to match type "${type}" (got ${describeValue(element)})`);
    } else if (value.slice(0, index).some((earlier: unknown) => isDeepStrictEqual(earlier, element))) {
      report([...path, "enum", index], `repeats ${describeValue(element)}`);
    }
  });
  return value as unknown[];
}

/**
 * Validates a user tool's parameter list (same rules as a plugin's, no line numbers).
 * `where` names the list in messages, e.g. `tool "weather": parameters`.
 * @example
 * validateParameterDecls([{ name: "city" }], "parameters")
 * // { ok: true, params: [{ name: "city", type: "string", description: "", required: false, secret: false, personal: false }] }
 */
export function validateParameterDecls(
  raw: unknown,
  where: string,
  options: { readonly code?: ErrorCode } = {},
): { ok: true; params: ParameterDecl[] } | { ok: false; errors: KnotError[] } {
  const errors: KnotError[] = [];
  const params = checkParameterDecls(raw, [], (path, problem) => {
    const at = `${where}${formatKeyPath(path)}`;
    const message = problem.startsWith(":") ? `${at}${problem}` : `${at} ${problem}`;
    errors.push(new KnotError(options.code ?? "METADATA_INVALID", message, { where: at }));
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, params };
}
