/**
 * Validates what a user submits for a tool or lib (API, editor, MCP authoring tools) before it
 * reaches the store: names, kind, language, sharing, size, and parameters with the same
 * vocabulary and checks as plugin tools.
 */
import { KnotError } from "../errors.ts";
import { validateParameterDecls } from "../plugins/manifest/index.ts";
import type { ParameterDecl, ParameterShape } from "../plugins/manifest-types.ts";
import type { Sharing, UserToolInput, UserToolParameter } from "../store/store.ts";
import { EVENT_TYPE, GROUP_SHARING, OWNER_SEPARATOR, TOOL_NAME, TOOL_NAME_MAX } from "../../sandbox/guest/names.ts";

export const MAX_CODE_BYTES = 256 * 1024;
const KEYS = new Set(["name", "kind", "description", "language", "parameters", "code", "sharing", "active", "readOnly", "destructive", "expectedVersion", "events"]);

function invalid(field: string, message: string): KnotError {
  return new KnotError("INVALID_ARGUMENT", `${field} ${message}`, { where: field });
}

/** `partial` fills absent fields from `base` (an update). */
export function parseUserToolInput(body: Record<string, unknown>, base?: UserToolInput): UserToolInput {
  for (const key of Object.keys(body)) if (!KEYS.has(key)) throw invalid(key, "is not a field of a tool (a typo?)");
  const pick = <T>(key: keyof UserToolInput, fallback: T): unknown => (body[key] !== undefined ? body[key] : base ? base[key] : fallback);

  const name = pick("name", undefined);
  if (typeof name !== "string" || !TOOL_NAME.test(name) || name.length > TOOL_NAME_MAX) throw invalid("name", "must be 1–64 letters, digits, _ or -, starting with a letter or digit");
  // `__` separates owner and name in the qualified names of shared tools (see tool-names.ts); a
  // name holding it could pose as another owner's tool. Names saved before the rule may keep it.
  if (name.includes(OWNER_SEPARATOR) && name !== base?.name) throw invalid("name", `may not contain "${OWNER_SEPARATOR}" (it separates owner and name in shared tools' names)`);
  const kind = pick("kind", "tool");
  if (kind !== "tool" && kind !== "lib" && kind !== "sink") throw invalid("kind", 'must be "tool", "lib" or "sink"');
  const description = pick("description", "");
  if (typeof description !== "string" || description.length > 2000) throw invalid("description", "must be a string of at most 2000 characters");
  const language = pick("language", "js");
  if (language !== "js" && language !== "ts") throw invalid("language", 'must be "js" or "ts"');
  const code = pick("code", undefined);
  if (typeof code !== "string") throw invalid("code", "is required (the tool's source)");
  if (Buffer.byteLength(code) > MAX_CODE_BYTES) throw invalid("code", `is over ${MAX_CODE_BYTES} bytes`);
  const sharing = pick("sharing", "private");
  if (typeof sharing !== "string" || !(sharing === "private" || sharing === "everyone" || GROUP_SHARING.test(sharing))) {
    throw invalid("sharing", 'must be "private", "everyone" or "@group"');
  }
  const flags = Object.fromEntries((["active", "readOnly", "destructive"] as const).map((key) => {
    const value = pick(key, key === "active");
    if (typeof value !== "boolean") throw invalid(key, "must be true or false");
    return [key, value];
  })) as { active: boolean; readOnly: boolean; destructive: boolean };
  if (flags.readOnly && flags.destructive) throw invalid("readOnly", "cannot be set together with destructive");

  return {
    name, kind, description, language, code, sharing: sharing as Sharing, ...flags,
    parameters: parseToolParameters(pick("parameters", [])),
    ...(kind === "sink" ? { events: parseEvents(pick("events", undefined)) } : {}),
  };
}

/** A sink's subscriptions: 1–32 distinct event type names (whether each exists is checked by the catalog). */
function parseEvents(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 32) throw invalid("events", 'must list 1–32 event types for a sink, e.g. ["tool.saved"]');
  raw.forEach((type, index) => {
    if (typeof type !== "string" || !EVENT_TYPE.test(type)) throw invalid(`events[${index}]`, "must be an event type name like \"tool.saved\"");
  });
  return [...new Set(raw as string[])];
}

/**
 * Unsaved code (the editor's check and run, `POST /api/tools/check|run`, `POST /api/runs`): the
 * fields a run uses, checked by exactly the rules a saved tool's are (issue 10 item 7).
 */
export function parseDraftInput(draft: Record<string, unknown>): Pick<UserToolInput, "name" | "code" | "language" | "kind" | "parameters"> {
  const name = draft.name === undefined || draft.name === "" ? "draft" : draft.name;
  const { code, language, kind, parameters } = parseUserToolInput({ name, code: draft.code, language: draft.language, kind: draft.kind, parameters: draft.parameters, events: draft.events });
  return { name: name as string, code, language, kind, parameters };
}

/** A tool's parameter list, saved or draft: the plugin vocabulary and bounds, as INVALID_ARGUMENT. */
export function parseToolParameters(raw: unknown): UserToolParameter[] {
  const result = validateParameterDecls(raw, "parameters", { code: "INVALID_ARGUMENT" });
  if (!result.ok) throw result.errors[0]!;
  return result.params.map(storedParameter);
}

/** A checked declaration as a user tool stores it (nested members and items included). */
function storedParameter(p: ParameterDecl): UserToolParameter {
  return {
    name: p.name, ...storedShape(p), required: p.required,
    ...(p.default !== undefined ? { default: p.default } : {}),
  };
}

function storedShape(p: ParameterShape): Omit<UserToolParameter, "name" | "required" | "default"> & { description: string; secret: boolean; personal: boolean } {
  return {
    type: p.type, description: p.description,
    ...(p.enum ? { enum: [...p.enum] } : {}),
    secret: p.secret, personal: p.personal,
    ...(p.properties ? { properties: p.properties.map(storedParameter) } : {}),
    ...(p.items ? { items: storedShape(p.items) } : {}),
  };
}
