/**
 * Validates declared tool parameters (`[[tool.knot.mcp_tools.parameters]]` in a plugin, and the
 * same list on user tools). Parameters become the tool's JSON Schema, which is what arguments are
 * checked against, so a default or enum that contradicts its type is refused here.
 */
import { isDeepStrictEqual } from "node:util";
import { KnotError } from "../../errors.ts";
import type { ErrorCode } from "../../errors.ts";
import type { ParameterDecl, ParameterType } from "../manifest-types.ts";
import { checkKnownKeys, describeValue, IDENTIFIER, isTable, readBool, readString } from "./checks.ts";
import type { Report, TomlTable } from "./checks.ts";
import { formatKeyPath } from "./key-path.ts";
import type { KeyPath } from "./key-path.ts";

export const PARAMETER_TYPES: readonly ParameterType[] = ["string", "int", "float", "bool", "list"];
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
  return params;
}

/** The parameter, or null when a problem was reported; `name` whenever it is readable (for repeats). */
function checkParameter(table: TomlTable, path: KeyPath, report: Report): { name: string | undefined; param: ParameterDecl | null } {
  checkKnownKeys(table, PARAMETER_KEYS, path, report);
  const name = readString(table, "name", path, report, {
    required: true,
    pattern: IDENTIFIER,
    patternName: "an identifier ([A-Za-z_][A-Za-z0-9_]*)",
  });
  const type = readType(table, path, report);
  const description = readString(table, "description", path, report) ?? "";
  const required = readBool(table, "required", path, report) ?? false;
  const secret = readBool(table, "secret", path, report) ?? false;
  const personal = readBool(table, "personal", path, report) ?? false;
  const enumValues = type ? readEnum(table, type, path, report) : undefined;
  const defaultValue = table["default"];
  if (defaultValue !== undefined && type) {
    if (!matchesParameterType(type, defaultValue)) {
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
