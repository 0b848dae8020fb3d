/**
 * Turns declared parameters into the JSON Schema an MCP client receives as `inputSchema`
 * (and arguments are checked against). secret/personal stay on the declaration: they are
 * audit-log marks, not part of the schema. Objects and lists nest: an object's `properties`
 * become its `properties`/`required`, a list's `items` its `items`.
 */
import type { JsonSchemaObject, ParameterDecl, ParameterShape, ParameterType } from "../manifest-types.ts";

const JSON_SCHEMA_TYPES: Record<ParameterType, string> = {
  string: "string",
  int: "integer",
  float: "number",
  bool: "boolean",
  list: "array",
  object: "object",
};

/**
 * @example
 * parametersToJsonSchema([{ name: "hours", type: "int", description: "Hours.", required: false, default: 24, secret: false, personal: false }])
 * // { type: "object", properties: { hours: { type: "integer", description: "Hours.", default: 24 } } }
 */
export function parametersToJsonSchema(params: readonly ParameterDecl[]): JsonSchemaObject {
  const { properties, required } = membersSchema(params);
  return required.length > 0 ? { type: "object", properties, required } : { type: "object", properties };
}

function membersSchema(params: readonly ParameterDecl[]): { properties: Record<string, Record<string, unknown>>; required: string[] } {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const param of params) {
    const property = shapeSchema(param);
    if (param.default !== undefined) property["default"] = param.default;
    // defineProperty, so a parameter named `__proto__` is an ordinary key.
    Object.defineProperty(properties, param.name, { value: property, enumerable: true, writable: true, configurable: true });
    if (param.required) required.push(param.name);
  }
  return { properties, required };
}

function shapeSchema(shape: ParameterShape): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: JSON_SCHEMA_TYPES[shape.type] };
  // Some clients (and model APIs) refuse an array schema without `items`; a list holds any JSON value.
  if (shape.type === "list") schema["items"] = shape.items ? shapeSchema(shape.items) : {};
  if (shape.type === "object" && shape.properties) {
    const { properties, required } = membersSchema(shape.properties);
    schema["properties"] = properties;
    if (required.length > 0) schema["required"] = required;
  }
  if (shape.description !== "") schema["description"] = shape.description;
  if (shape.enum !== undefined) schema["enum"] = [...shape.enum];
  return schema;
}
