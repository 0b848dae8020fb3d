/**
 * The one seam for JSON Schema validation (ajv). Arguments are checked against a tool's schema
 * before any handler runs; the first problem becomes an INVALID_ARGUMENT naming the argument.
 * Defaults declared in the schema are filled in.
 *
 * Compiled validators are cached by the SHA-256 of the schema's text, in a bounded map: a user
 * tool's schema is rebuilt from the store on every call, so caching by object alone compiled it
 * again each time (~2 ms), and ajv's own cache (keyed by object, never emptied) kept every copy
 * alive. Keying by hash keeps the cache small even for schemas near the 64 KiB cap.
 *
 * ajv compiles synchronously on the event loop. What reaches it is bounded before (at most 64
 * parameters, a 64 KiB schema: see src/plugins/manifest/parameters.ts), and a schema ajv refuses
 * (or overflows on) is the caller's INVALID_ARGUMENT, never a 500.
 *
 * Dialects: a schema naming draft-07 in `$schema` is compiled as draft-07; any other schema as
 * JSON Schema 2020-12, the MCP default when `$schema` is absent (SEP-1613). A plugin's raw
 * `input_schema` is compiled once at load (schemaProblem), so one ajv refuses is a manifest error.
 */
import { createHash } from "node:crypto";
import { Ajv, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { KnotError } from "../errors.ts";
import { copyJson } from "./json-copy.ts";

// loopEnum / loopRequired: long `enum` and `required` lists compile to a loop instead of one
// comparison per value; measured here, a 64 KiB schema of enums compiled ~6× slower unrolled.
// logger: false, so an unknown `format` (ignored, as strict is off) does not write to the console.
const OPTIONS: Options = { allErrors: false, useDefaults: true, strict: false, coerceTypes: false, loopEnum: 8, loopRequired: 8, logger: false };
const draft07 = new Ajv(OPTIONS);
const draft2020 = new Ajv2020(OPTIONS);
export const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
/** `$schema` values a tool schema may name (with or without the trailing `#`). */
export const SUPPORTED_DIALECTS = [DRAFT_2020_12, DRAFT_07] as const;

function ajvFor(schema: object): Ajv | Ajv2020 {
  const dialect = (schema as { $schema?: unknown }).$schema;
  return typeof dialect === "string" && dialect.replace(/#$/, "") === DRAFT_07.replace(/#$/, "") ? draft07 : draft2020;
}
const MAX_CACHED = 512;
const byObject = new WeakMap<object, ValidateFunction>();
const byHash = new Map<string, ValidateFunction>();
let compiled = 0;

/** How many schemas were compiled since start (for tests of the cache). */
export function compiledValidatorCount(): number {
  return compiled;
}

function validatorFor(schema: object, tool: string): ValidateFunction {
  let validate = byObject.get(schema);
  if (validate) return validate;
  const hash = createHash("sha256").update(JSON.stringify(schema)).digest("base64url");
  validate = byHash.get(hash);
  if (validate) {
    byHash.delete(hash); // re-inserted below: most recently used last
  } else {
    validate = compile(schema, tool);
  }
  byHash.set(hash, validate);
  if (byHash.size > MAX_CACHED) byHash.delete(byHash.keys().next().value as string);
  byObject.set(schema, validate);
  return validate;
}

function compile(schema: object, tool: string): ValidateFunction {
  const ajv = ajvFor(schema);
  try {
    compiled += 1;
    return ajv.compile(schema);
  } catch (error) {
    throw new KnotError("INVALID_ARGUMENT", `the parameters of "${tool}" do not make a valid schema: ${reasonOf(error)}`, { where: "parameters" });
  } finally {
    ajv.removeSchema(schema);
  }
}

function reasonOf(error: unknown): string {
  return error instanceof RangeError ? "it is too large" : String((error as Error).message).slice(0, 200);
}

/** Why ajv refuses to compile `schema` (a remote `$ref`, an unknown keyword shape…), or null. */
export function schemaProblem(schema: object): string | null {
  const ajv = ajvFor(schema);
  try {
    ajv.compile(schema);
    return null;
  } catch (error) {
    return reasonOf(error);
  } finally {
    ajv.removeSchema(schema);
  }
}

export function validateArguments(schema: object, args: unknown, tool: string): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new KnotError("INVALID_ARGUMENT", `arguments of "${tool}" must be an object`);
  }
  const validate = validatorFor(schema, tool);
  const copy = copyJson(args) as Record<string, unknown>;
  if (validate(copy)) return copy;
  const error = validate.errors?.[0];
  const at = argumentPath(error?.instancePath ?? "");
  const missing = error?.keyword === "required" ? String((error.params as { missingProperty?: string }).missingProperty) : null;
  // A nested required member is named by its whole path: `contact.phone`, `contacts[1].phone`.
  const name = missing === null ? at : at === "" ? missing : `${at}.${missing}`;
  const message = missing !== null ? `argument "${name}" of "${tool}" is required` : `argument "${name}" of "${tool}" ${error?.message ?? "is invalid"}`;
  throw new KnotError("INVALID_ARGUMENT", message, { where: name });
}

/** ajv's JSON Pointer (`/contacts/1/phone`) as an argument path (`contacts[1].phone`). */
function argumentPath(pointer: string): string {
  return pointer.split("/").filter(Boolean).map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path === "" ? segment : `${path}.${segment}`), "");
}
