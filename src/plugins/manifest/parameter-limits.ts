/**
 * Bounds on what becomes a JSON Schema that ajv compiles on the event loop (issue 10 item 7:
 * 2,500 required parameters stalled the server for seconds and overflowed ajv's stack). Measured
 * here: 64 parameters compile in a few ms; the schema-size cap bounds enums and defaults too.
 * A raw `input_schema` (input-schema.ts) has the same size cap and nests at most maxSchemaDepth.
 * Pure data and no imports: the web UI's parameter editor bundles this file too, so it offers
 * exactly the nesting the server accepts.
 */
export const PARAMETER_LIMITS = Object.freeze({ maxParameters: 64, maxEnumValues: 256, maxValueDepth: 16, maxSchemaBytes: 64 * 1024, maxSchemaDepth: 32, maxNesting: 8, maxDeclared: 128 });
