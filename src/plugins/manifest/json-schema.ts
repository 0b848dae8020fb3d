/**
 * Turns declared parameters into the JSON Schema an MCP client receives as `inputSchema`
 * (and arguments are checked against). secret/personal stay on the declaration: they are
 * audit-log marks, not part of the schema.
 */
import type { JsonSchemaObject, ParameterDecl, ParameterType } from "../manifest-types.ts";

const JSON_SCHEMA_TYPES: Record<ParameterType, string> = {
  string: "string",
  int: "integer",
  float: "number",
  bool: "boolean",
  list: "array",
};

/**
 * @example
 * parametersToJsonSchema([{ name: "hours", type: "int", description: "Hours.", required: false, default: 24, secret: false, personal: false }])
 * // { type: "object", properties: { hours: { type: "integer", description: "Hours.", default: 24 } } }
 */
export function parametersToJsonSchema(params: readonly ParameterDecl[]): JsonSchemaObject {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const param of params) {
    const property: Record<string, unknown> = { type: JSON_SCHEMA_TYPES[param.type] };
    // Some clients (and model APIs) refuse an array schema without `items`; a list holds any JSON value.
    if (param.type === "list") property["items"] = {};
    if (param.description !== "") property["description"] = param.description;
    if (param.default !== undefined) property["default"] = param.default;
    if (param.enum !== undefined) property["enum"] = [...param.enum];
    // defineProperty, so a parameter named `__proto__` is an ordinary key.
    Object.defineProperty(properties, param.name, { value: property, enumerable: true, writable: true, configurable: true });
    if (param.required) required.push(param.name);
  }
  return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
}
