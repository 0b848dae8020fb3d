/**
 * `knot:plugin` — call a plugin's declared handler over the authenticated loopback.
 *   import { call } from "knot:plugin";
 *   const rows = await call("metrics", "export_all", { range: "1h" });            // GET ?params=<JSON>
 *   await call("metrics", "submit", { range: "1h" }, { method: "POST" });         // JSON body
 * The worker sends the real HTTP request with the run's token (which never enters the isolate);
 * the server applies the handler's gate. A refused gate rejects with an Error whose `code` is
 * PERMISSION_DENIED, an unknown plugin/handler with NOT_ADDRESSABLE, anything else LOOPBACK_FAILED.
 * Names are checked here and again in the worker.
 */
import { GUEST_CAPS } from "./bindings.ts";
import * as I from "./intrinsics.ts";
import { callTargetProblem } from "./call-target.ts";
import { q, startCall } from "./runtime.ts";

function reject(message: string): Promise<never> {
  return I.PromiseReject(new I.TypeError(`knot:plugin.call: ${message}`));
}

export interface CallOptions {
  readonly method?: "GET" | "POST";
}

export function call(plugin: string, fn: string, params?: Record<string, unknown>, options?: CallOptions): Promise<unknown> {
  const problem = callTargetProblem(plugin, fn, I.RegExpExec);
  if (problem !== null) return reject(problem);
  let method = "GET"; // as knot's, and as the in-process knot:plugin.call of plugin code (parity)
  if (options !== undefined && options !== null) {
    const asked = I.ObjectHasOwn(options, "method") ? (options as Record<string, unknown>).method : undefined;
    if (asked !== undefined) {
      if (asked !== "GET" && asked !== "POST") return reject('options.method must be "GET" or "POST"');
      method = asked;
    }
  }
  let paramsJson = "{}";
  if (params !== undefined && params !== null) {
    if (typeof params !== "object" || I.ArrayIsArray(params)) return reject("params must be an object");
    let text: string | undefined;
    try {
      text = I.JSONStringify(params);
    } catch {
      text = undefined;
    }
    if (typeof text !== "string") return reject("params must be JSON-serialisable");
    if (text[0] !== "{") return reject("params must serialise to a JSON object");
    paramsJson = text;
  }
  const request = `{"plugin":${q(plugin)},"fn":${q(fn)},"method":${q(method)},"params":${paramsJson}}`;
  if (request.length > GUEST_CAPS.callRequestChars) return reject(`params are larger than ${GUEST_CAPS.callRequestChars} characters`);
  return startCall(request);
}
