/**
 * The one seam for JSON Schema validation (ajv). Arguments are checked against a tool's schema
 * before any handler runs; the first problem becomes an INVALID_ARGUMENT naming the argument.
 * Defaults declared in the schema are filled in.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { KnotError } from "../errors.ts";

const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, coerceTypes: false });
const cache = new WeakMap<object, ValidateFunction>();

export function validateArguments(schema: object, args: unknown, tool: string): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new KnotError("INVALID_ARGUMENT", `arguments of "${tool}" must be an object`);
  }
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  const copy = structuredClone(args) as Record<string, unknown>;
  if (validate(copy)) return copy;
  const error = validate.errors?.[0];
  const missing = error?.keyword === "required" ? String((error.params as { missingProperty?: string }).missingProperty) : null;
  const name = missing ?? error?.instancePath.split("/").filter(Boolean).join(".") ?? "";
  const message = missing ? `argument "${missing}" of "${tool}" is required` : `argument "${name}" of "${tool}" ${error?.message ?? "is invalid"}`;
  throw new KnotError("INVALID_ARGUMENT", message, { where: name });
}
