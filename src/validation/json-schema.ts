/**
 * The one seam for JSON Schema validation (ajv). Arguments are checked against a tool's schema
 * before any handler runs; the first problem becomes an INVALID_ARGUMENT naming the argument.
 * Defaults declared in the schema are filled in.
 *
 * Compiled validators are cached by the schema's text, in a bounded map: a user tool's schema is
 * rebuilt from the store on every call, so caching by object alone compiled it again each time
 * (~2 ms), and ajv's own cache (keyed by object, never emptied) kept every copy alive — measured
 * at ~3 KB of heap per call under load.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { KnotError } from "../errors.ts";

const ajv = new Ajv({ allErrors: false, useDefaults: true, strict: false, coerceTypes: false });
const MAX_CACHED = 512;
const byObject = new WeakMap<object, ValidateFunction>();
const byText = new Map<string, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = byObject.get(schema);
  if (validate) return validate;
  const text = JSON.stringify(schema);
  validate = byText.get(text);
  if (validate) {
    byText.delete(text); // re-inserted below: most recently used last
  } else {
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
  }
  byText.set(text, validate);
  if (byText.size > MAX_CACHED) byText.delete(byText.keys().next().value as string);
  byObject.set(schema, validate);
  return validate;
}

export function validateArguments(schema: object, args: unknown, tool: string): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new KnotError("INVALID_ARGUMENT", `arguments of "${tool}" must be an object`);
  }
  const validate = validatorFor(schema);
  const copy = structuredClone(args) as Record<string, unknown>;
  if (validate(copy)) return copy;
  const error = validate.errors?.[0];
  const missing = error?.keyword === "required" ? String((error.params as { missingProperty?: string }).missingProperty) : null;
  const name = missing ?? error?.instancePath.split("/").filter(Boolean).join(".") ?? "";
  const message = missing ? `argument "${missing}" of "${tool}" is required` : `argument "${name}" of "${tool}" ${error?.message ?? "is invalid"}`;
  throw new KnotError("INVALID_ARGUMENT", message, { where: name });
}
