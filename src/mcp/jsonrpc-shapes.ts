/**
 * JSON-RPC pieces both transports (HTTP, stdio) write the same way: which id an error answer may
 * echo, and the -32022 answer to a protocol version the server does not speak.
 */
import { MODERN_PROTOCOL_VERSION } from "./sdk.ts";

/** An id an answer can carry: a string or a finite number (`1e400` parses as Infinity, which JSON cannot write). */
export function isUsableId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** The id of a single message, when it has a usable one (null for batches, notifications and odd ids). */
export function idOf(message: unknown): string | number | null {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return null;
  const id = (message as { id?: unknown }).id;
  return isUsableId(id) ? id : null;
}

/** -32022 for a claimed version: names it (a string as it is, anything else as JSON, clipped) and what a stateless request may name. */
export function unsupportedVersionError(claimed: unknown, more = ""): { code: number; message: string; data: { supported: string[]; requested: string } } {
  // String() of an object can throw (`{"toString": 1}`); JSON.stringify of a parsed value cannot.
  const requested = typeof claimed === "string" ? claimed.slice(0, 64) : (JSON.stringify(claimed) ?? "").slice(0, 64);
  return { code: -32022, message: `Unsupported protocol version: ${JSON.stringify(requested)}${more}`, data: { supported: [MODERN_PROTOCOL_VERSION], requested } };
}
