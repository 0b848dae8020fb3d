/**
 * Why: `knot:plugin.call` leaves the isolate as a JSON string; this file is where it becomes a real
 * HTTP request to the server's own dispatch, carrying the run's loopback token. The token is read
 * here and never written into anything that goes back to the guest: replies carry only a status
 * mapping, the response body, or a fixed message. Names are checked again (the guest's check is
 * for friendly errors; this one is the rule) and path segments are percent-encoded.
 */
import { LOOPBACK_TOKEN_HEADER, PLUGIN_ROUTE_PREFIX, REQUEST_ID_HEADER, type LoopbackTarget } from "../protocol.ts";
import { callTargetProblem } from "../guest/names.ts";
import { sendHttp } from "./http-client.ts";

export interface LoopbackRequest {
  readonly plugin: string;
  readonly fn: string;
  readonly method: "GET" | "POST";
  readonly params: Record<string, unknown>;
}

/** Parses and checks the guest's request text; a string is the reason it was refused. */
export function parseLoopbackRequest(text: string): LoopbackRequest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "the request is not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the request is not an object";
  const { plugin, fn, method, params } = value as Record<string, unknown>;
  const problem = callTargetProblem(plugin, fn);
  if (problem !== null) return problem;
  if (method !== "GET" && method !== "POST") return 'the method must be "GET" or "POST"';
  if (typeof params !== "object" || params === null || Array.isArray(params)) return "params must be an object";
  return { plugin: plugin as string, fn: fn as string, method, params: params as Record<string, unknown> };
}

export interface LoopbackCallOptions {
  readonly target: LoopbackTarget;
  readonly requestId: string | undefined;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

/** The reply the guest's deliver() understands: always JSON text, never throws. */
export type DeliverPayload = string;

/** The longest URL a GET call is sent with: well inside Node's 16 KiB for the request line and headers. */
const MAX_GET_URL_CHARS = 12_000;

export const deliverPayload = {
  ok: (json: boolean, body: string): DeliverPayload => JSON.stringify({ ok: true, json, body, code: "", message: "" }),
  error: (code: string, message: string): DeliverPayload => JSON.stringify({ ok: false, json: false, body: "", code, message }),
};

export function loopbackUrl(baseUrl: string, call: LoopbackRequest): string {
  const base = baseUrl.endsWith("/") ? baseUrl.slice(0, -1) : baseUrl;
  const path = `${PLUGIN_ROUTE_PREFIX}${encodeURIComponent(call.plugin)}/${encodeURIComponent(call.fn)}`;
  const query = call.method === "GET" ? `?params=${encodeURIComponent(JSON.stringify(call.params))}` : "";
  return `${base}${path}${query}`;
}

export async function performLoopbackCall(call: LoopbackRequest, options: LoopbackCallOptions): Promise<DeliverPayload> {
  const headers: Record<string, string> = {
    [LOOPBACK_TOKEN_HEADER]: `Bearer ${options.target.token}`,
    accept: "application/json",
  };
  if (options.requestId !== undefined) headers[REQUEST_ID_HEADER] = options.requestId;
  if (call.method === "POST") headers["content-type"] = "application/json";
  const label = `${call.plugin}/${call.fn}`;
  const url = loopbackUrl(options.target.baseUrl, call);
  // A GET carries its params in the URL, which HTTP servers bound with the headers (Node: 16 KiB, 431 past it).
  if (url.length > MAX_GET_URL_CHARS) {
    return deliverPayload.error("INVALID_ARGUMENT", `${label}: the params of a GET call are too large for its URL (${url.length} characters, at most ${MAX_GET_URL_CHARS}): pass { method: "POST" } to send them in the body`);
  }
  try {
    const response = await sendHttp({
      url,
      method: call.method,
      headers,
      ...(call.method === "POST" ? { body: JSON.stringify(call.params) } : {}),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxResponseBytes,
    });
    if (response.status === 403) return deliverPayload.error("PERMISSION_DENIED", deniedMessage(response.body));
    if (response.status === 404) return deliverPayload.error("NOT_ADDRESSABLE", "not addressable");
    if (response.body === undefined) {
      return deliverPayload.error("LOOPBACK_FAILED", `${label}: the response is larger than ${options.maxResponseBytes} bytes`);
    }
    if (response.status < 200 || response.status > 299) {
      return deliverPayload.error("LOOPBACK_FAILED", `${label} failed with HTTP ${response.status}${serverMessage(response.body)}`);
    }
    if (response.status === 204 || response.body === "") return deliverPayload.ok(true, "null");
    if (/\bjson\b/i.test(response.contentType)) {
      try {
        JSON.parse(response.body);
      } catch {
        return deliverPayload.error("LOOPBACK_FAILED", `${label}: the response is not valid JSON`);
      }
      return deliverPayload.ok(true, response.body);
    }
    return deliverPayload.ok(false, response.body);
  } catch (error) {
    if (options.signal.aborted) return deliverPayload.error("LOOPBACK_FAILED", `${label}: the call was abandoned when the run ended`);
    const code = (error as { code?: unknown }).code;
    return deliverPayload.error("LOOPBACK_FAILED", `${label}: the loopback request failed${typeof code === "string" ? ` (${code})` : ""}`);
  }
}

/** The server's refusal says why when it is the caller's own credential (scopes, read-only token). */
function deniedMessage(body: string | undefined): string {
  const message = body === undefined ? "" : serverMessage(body).replace(/^ PERMISSION_DENIED: /, "");
  return message.startsWith("permission denied") ? message : "permission denied";
}

/** The server's own error answer, `{error: <message>, code}` (already redacted by the server), clipped. */
function serverMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
    const message = typeof parsed.error === "string" ? parsed.error : (parsed.error as { message?: unknown } | undefined)?.message;
    const code = typeof parsed.code === "string" && /^[A-Z_]{1,40}$/.test(parsed.code) ? ` ${parsed.code}` : "";
    return typeof message === "string" && message !== "" ? `${code}: ${message.slice(0, 300)}` : code;
  } catch {
    return "";
  }
}
