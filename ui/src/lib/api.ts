/**
 * The UI's only way to the server. Requests go to this origin with the session cookie (sent by
 * the browser, unreadable to scripts) and the `x-knot-csrf: 1` header the server requires on
 * cookie-authenticated requests. Errors arrive as ApiError with the server's stable `code`.
 */
const CSRF_HEADER = "x-knot-csrf";

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly where: string | undefined;
  constructor(code: string, message: string, status: number, where?: string) {
    super(message);
    this.code = code;
    this.status = status;
    this.where = where;
  }
}

/** Fired on window when the server says the session is gone, so the app shows sign-in. */
export const SIGNED_OUT_EVENT = "knot:signed-out";

async function errorOf(res: Response): Promise<ApiError> {
  let body: { code?: string; error?: string; where?: string } = {};
  try {
    body = await res.json();
  } catch {
    // not JSON: fall back to the status
  }
  return new ApiError(body.code ?? `HTTP_${res.status}`, body.error ?? res.statusText ?? "request failed", res.status, body.where);
}

export async function request(method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { [CSRF_HEADER]: "1", accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(path, { ...init, method, headers, credentials: "same-origin", body: body === undefined ? null : JSON.stringify(body) });
  if (!res.ok) {
    const error = await errorOf(res);
    if (res.status === 401 && path !== "/api/session") window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT));
    throw error;
  }
  return res;
}

/** A JSON API call: resolves with the decoded body, rejects with ApiError. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(method, path, body);
  const text = await res.text();
  return (text === "" ? null : JSON.parse(text)) as T;
}

export const get = <T = any>(path: string) => api<T>("GET", path);

/** POSTs fields form-encoded (what an HTML form sends), with the CSRF header like every call. */
export async function postForm<T = any>(path: string, fields: Array<[string, string]>): Promise<T> {
  const res = await fetch(path, {
    method: "POST", credentials: "same-origin", body: new URLSearchParams(fields).toString(),
    headers: { [CSRF_HEADER]: "1", accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
  });
  if (!res.ok) {
    const error = await errorOf(res);
    if (res.status === 401) window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT));
    throw error;
  }
  return (await res.json()) as T;
}

/**
 * Calls a plugin's declared handler as the signed-in user, through the same gate as any other
 * caller: `pluginFetch("demo/echo_word", { method: "POST", params: { word: "hi" } })`.
 * Resolves with the handler's result (JSON decoded, text as a string); rejects with ApiError
 * (`PERMISSION_DENIED`, `NOT_ADDRESSABLE`, …).
 */
export async function pluginFetch(fn: string, options: { method?: string; params?: Record<string, unknown> } = {}): Promise<unknown> {
  const slash = fn.indexOf("/");
  if (slash <= 0 || slash === fn.length - 1) throw new ApiError("BAD_REQUEST", 'name the handler as "plugin/function"', 400);
  const plugin = encodeURIComponent(fn.slice(0, slash));
  const handler = encodeURIComponent(fn.slice(slash + 1));
  const method = (options.method ?? "GET").toUpperCase();
  const params = options.params ?? {};
  const query = method === "GET" && Object.keys(params).length > 0 ? `?params=${encodeURIComponent(JSON.stringify(params))}` : "";
  const res = await request(method, `/plugins/${plugin}/${handler}${query}`, method === "GET" ? undefined : params);
  const type = res.headers.get("content-type") ?? "";
  const text = await res.text();
  return type.includes("json") ? (text === "" ? null : JSON.parse(text)) : text;
}

export interface Me {
  id: string;
  name: string;
  isAdmin: boolean;
  groups: string[];
  permissions: string[];
  pluginPermissions: string[];
  tokenId: string | null;
}

export interface Parameter {
  name: string;
  type: "string" | "int" | "float" | "bool" | "list" | "object";
  description?: string;
  required?: boolean;
  default?: unknown;
  enum?: unknown[];
  secret?: boolean;
  personal?: boolean;
  /** `object`: its members, each a parameter. */
  properties?: Parameter[];
  /** `list`: what each element is (absent: any JSON value). */
  items?: Omit<Parameter, "name" | "required" | "default">;
}

export interface Tool {
  id: string;
  ownerId: string;
  name: string;
  kind: "tool" | "lib" | "sink";
  /** A sink's subscribed event types. */
  events?: string[];
  description: string;
  language: "js" | "ts";
  parameters: Parameter[];
  code?: string;
  sharing: string;
  active: boolean;
  readOnly?: boolean;
  destructive?: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
  mine: boolean;
  /** The owner's user name: tools shared with you are called `<ownerName>__<name>` over MCP. */
  ownerName: string;
  /** The name this tool goes by for you over MCP (and `lib:` imports): bare if yours, else `<owner>__<name>`. */
  callAs: string;
  libPins: { name: string; libId: string; version: number }[];
}

/** One `lib:` pin with what it points at now, as `GET /api/tools/:id/libs` answers it. */
export interface LibPinStatus {
  name: string;
  libId: string;
  version: number;
  status: "ok" | "outdated" | "deleted" | "unreadable" | "version-unreadable" | "version-missing";
  owner: string | null;
  libName: string | null;
  latestVersion: number | null;
}

/** Lint diagnostics as `/api/tools/check` answers them: the host's own type. */
export type { Diagnostic } from "../../../client-modules/diagnostic.ts";
