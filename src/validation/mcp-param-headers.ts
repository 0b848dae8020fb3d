/**
 * `x-mcp-header` (MCP 2026-07-28 Streamable HTTP, SEP-2243): a tool's input schema may mark a
 * primitive argument to be mirrored in an `Mcp-Param-{Name}` request header, so proxies can route
 * on it. The server must check the header against the body, or a proxy routing on the header and
 * the tool acting on the body could be told two different things.
 *
 * The SDK does both halves (scan and compare) only for its high-level McpServer and does not
 * export them; we serve per-user tools from the low-level Server, so the same rules live here:
 * `scanHeaderParams` at plugin load (a bad declaration is a manifest error) and
 * `paramHeaderMismatch` before a 2026 `tools/call` reaches the SDK.
 */

/** One argument mirrored in a header: its path through `properties`, and the header's suffix. */
export interface HeaderParam {
  readonly path: readonly string[];
  readonly header: string;
  readonly type: "string" | "integer" | "boolean";
}

const KEY = "x-mcp-header";
/** RFC 9110 `token`: no spaces, control characters or delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES = new Set(["string", "integer", "boolean"]);

/** A request header a tool may declare, as the browser names it in a CORS preflight (lower case). */
export function isParamHeaderName(name: string): boolean {
  return name.startsWith("mcp-param-") && name.length > "mcp-param-".length && TOKEN.test(name);
}
/** Subschema positions a header may not sit under (not statically reachable through `properties`). */
const UNREACHABLE = ["items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems",
  "propertyNames", "patternProperties", "dependentSchemas", "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions"];
const NAMED_SUBSCHEMAS = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

/** The schema's header declarations, or the first rule one breaks (as a sentence naming where). */
export function scanHeaderParams(schema: object): { ok: true; params: HeaderParam[] } | { ok: false; problem: string } {
  const params: HeaderParam[] = [];
  const seen = new Map<string, string>();
  // Iterative walk: the schema's depth is bounded before, but no depth can overflow this.
  const stack: Array<{ node: unknown; path: string[]; reachable: boolean }> = [{ node: schema, path: [], reachable: true }];
  while (stack.length > 0) {
    const { node, path, reachable } = stack.pop()!;
    if (typeof node !== "object" || node === null || Array.isArray(node)) continue;
    const table = node as Record<string, unknown>;
    const where = path.length === 0 ? "the schema root" : `properties.${path.join(".")}`;
    if (Object.hasOwn(table, KEY)) {
      if (!reachable || path.length === 0) return { ok: false, problem: `${KEY} at ${where} is only allowed on a property reached through "properties" alone (not under items, allOf/anyOf/oneOf/not, if/then/else, $defs or additionalProperties)` };
      const header = table[KEY];
      if (typeof header !== "string" || !TOKEN.test(header)) return { ok: false, problem: `${KEY} at ${where} must be a header-name token: letters, digits and !#$%&'*+-.^_\`|~ only (got ${JSON.stringify(header)})` };
      const type = table["type"];
      if (typeof type !== "string" || !TYPES.has(type)) return { ok: false, problem: `${KEY} at ${where} needs "type" string, integer or boolean (got ${JSON.stringify(type ?? null)})` };
      const earlier = seen.get(header.toLowerCase());
      if (earlier !== undefined) return { ok: false, problem: `${KEY} "${header}" at ${where} repeats "${earlier}" (header names ignore case)` };
      seen.set(header.toLowerCase(), header);
      params.push({ path, header, type: type as HeaderParam["type"] });
    }
    const properties = table["properties"];
    if (typeof properties === "object" && properties !== null && !Array.isArray(properties)) {
      for (const [name, child] of Object.entries(properties)) stack.push({ node: child, path: [...path, name], reachable });
    }
    for (const keyword of UNREACHABLE) {
      const sub = table[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED_SUBSCHEMAS.has(keyword) && typeof sub === "object" && sub !== null ? Object.values(sub) : [sub];
      for (const branch of branches) stack.push({ node: branch, path: [...path, `<${keyword}>`], reachable: false });
    }
  }
  return { ok: true, params: params.reverse() };
}

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** A header value: `=?base64?…?=` is canonical Base64 of UTF-8 text; anything else is literal. undefined = malformed. */
export function decodeParamHeader(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX) && value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(payload, "base64"));
  } catch {
    return undefined;
  }
}

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

/**
 * Why the `Mcp-Param-*` headers disagree with the call's `arguments`, or null when they agree.
 * A value present in the body needs its header, decoding to the same value; an absent or null
 * body value needs none (a header sent anyway is ignored). `header(name)` reads one request header.
 */
export function paramHeaderMismatch(params: readonly HeaderParam[], args: unknown, header: (name: string) => string | undefined): string | null {
  for (const param of params) {
    const name = `Mcp-Param-${param.header}`;
    let body: unknown = args;
    for (const key of param.path) body = typeof body === "object" && body !== null && Object.hasOwn(body, key) ? (body as Record<string, unknown>)[key] : undefined;
    const bodyText = body === undefined || body === null ? undefined : asHeaderText(body);
    if (bodyText === undefined) continue;
    const raw = header(name);
    if (raw === undefined) return `the arguments carry ${param.path.join(".")} but the ${name} header is missing`;
    const decoded = decodeParamHeader(raw.trim());
    if (decoded === undefined) return `the ${name} header is not valid Base64 of UTF-8 text inside =?base64?…?=`;
    const same = param.type === "integer" && typeof body === "number" && DECIMAL.test(decoded) ? Number(decoded) === body : decoded === bodyText;
    if (!same) return `the ${name} header says ${JSON.stringify(decoded)} but the arguments carry ${param.path.join(".")} = ${JSON.stringify(body)}`;
  }
  return null;
}
