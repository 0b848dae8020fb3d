/**
 * `input_schema` on `[[tool.knot.mcp_tools]]`: a raw JSON Schema for a tool whose arguments the
 * simple `parameters` list cannot describe ($defs/$ref, allOf/anyOf, if/then/else, nested
 * objects, `x-mcp-header`). Written as a TOML table or as a JSON string (the only way to write
 * `null`, which TOML lacks). Clients receive it as the tool's `inputSchema` unchanged.
 *
 * ajv compiles it on the event loop, so it is bounded like parameters are (PARAMETER_LIMITS: its
 * JSON at most 64 KiB, checked before parsing, and a nesting bound) and compiled once here: a
 * schema ajv refuses (a remote `$ref`, a malformed keyword) is a manifest error, never a failed
 * call. Patterns in it run on the event loop against callers' arguments: plugins are trusted code.
 */
import type { JsonSchemaObject } from "../manifest-types.ts";
import { jsonDepth } from "../../validation/json-depth.ts";
import { schemaProblem, SUPPORTED_DIALECTS } from "../../validation/json-schema.ts";
import { scanHeaderParams, type HeaderParam } from "../../validation/mcp-param-headers.ts";
import { describeValue, isTable, nonJsonValue } from "./checks.ts";
import type { Report } from "./checks.ts";
import type { KeyPath } from "./key-path.ts";
import { PARAMETER_LIMITS } from "./parameter-limits.ts";

/** Names every JavaScript object already answers to: refused as argument names, as for parameters. */
const RESERVED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The schema and its header declarations, or null when a problem was reported. */
export function checkInputSchema(raw: unknown, path: KeyPath, report: Report): { schema: JsonSchemaObject; headers: HeaderParam[] } | null {
  const schema = readSchema(raw, path, report);
  if (schema === null) return null;
  const problem = shapeProblem(schema);
  if (problem !== null) {
    report(path, problem);
    return null;
  }
  const scan = scanHeaderParams(schema);
  if (!scan.ok) {
    report(path, `: ${scan.problem}`);
    return null;
  }
  const refused = schemaProblem(schema);
  if (refused !== null) {
    report(path, `is not a schema ajv can compile: ${refused}`);
    return null;
  }
  return { schema: schema as unknown as JsonSchemaObject, headers: scan.params };
}

function readSchema(raw: unknown, path: KeyPath, report: Report): Record<string, unknown> | null {
  const max = PARAMETER_LIMITS.maxSchemaBytes;
  let value: unknown = raw;
  if (typeof raw === "string") {
    // Before parsing: a huge string is refused without reading it.
    if (raw.length > max || Buffer.byteLength(raw) > max) {
      report(path, `: the schema is ${Buffer.byteLength(raw)} bytes; at most 64 KiB (${max} bytes) per tool`);
      return null;
    }
    try {
      value = JSON.parse(raw);
    } catch (error) {
      report(path, `is not valid JSON: ${(error as Error).message.slice(0, 160)}`);
      return null;
    }
  } else if (!isTable(raw)) {
    report(path, `must be a table or a JSON string holding a JSON Schema object (got ${describeValue(raw)})`);
    return null;
  }
  if (!isTable(value)) {
    report(path, `must hold a JSON Schema object (got ${describeValue(value)})`);
    return null;
  }
  const depth = jsonDepth(value, PARAMETER_LIMITS.maxSchemaDepth);
  if (depth > PARAMETER_LIMITS.maxSchemaDepth) {
    report(path, `nests deeper than ${PARAMETER_LIMITS.maxSchemaDepth} levels`);
    return null;
  }
  const foreign = nonJsonValue(value);
  if (foreign !== null) {
    report(path, `holds ${foreign}, which JSON cannot carry: write the schema as a JSON string`);
    return null;
  }
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text);
  if (bytes > max) {
    report(path, `: the schema is ${bytes} bytes; at most 64 KiB (${max} bytes) per tool`);
    return null;
  }
  // Plain JSON objects whichever form it was written in (TOML tables have no prototype).
  return JSON.parse(text) as Record<string, unknown>;
}


/** What MCP and the argument check need of the top level: an object schema with plain property names. */
function shapeProblem(schema: Record<string, unknown>): string | null {
  if (schema["type"] !== "object") return `must have "type": "object" at its top level (got ${describeValue(schema["type"])})`;
  const dialect = schema["$schema"];
  if (dialect !== undefined && !(typeof dialect === "string" && SUPPORTED_DIALECTS.some((d) => d.replace(/#$/, "") === dialect.replace(/#$/, "")))) {
    return `names an unsupported "$schema" ${describeValue(dialect)}: use ${SUPPORTED_DIALECTS.map((d) => `"${d}"`).join(" or ")} (or leave it out: 2020-12)`;
  }
  const properties = schema["properties"];
  if (properties !== undefined && !isTable(properties)) return `: "properties" must be an object (got ${describeValue(properties)})`;
  const required = schema["required"];
  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === "string"))) return `: "required" must be an array of strings`;
  const names = [...Object.keys(properties ?? {}), ...((required as string[] | undefined) ?? [])];
  const reserved = names.find((name) => RESERVED_NAMES.has(name));
  if (reserved !== undefined) return `: the argument name ${JSON.stringify(reserved)} is refused: every JavaScript object has a property of that name`;
  return null;
}
