/**
 * `tools/call` with `arguments` that is not an object: the SDK would answer its schema library's
 * raw error dump. Before a message reaches the SDK, such arguments are set aside (replaced by `{}`)
 * and handed back to call-tool by request id, which answers a clean INVALID_ARGUMENT tool result.
 */
export type SetAside = Map<string | number, unknown>;

/** Sets aside non-object `arguments` of the tools/call messages in `body` (one message or a batch). */
export function setAsideBadArguments(body: unknown, into: SetAside): unknown {
  const fix = (message: unknown): unknown => {
    if (typeof message !== "object" || message === null || Array.isArray(message)) return message;
    const m = message as Record<string, unknown>;
    const params = m.params as Record<string, unknown> | undefined;
    if (m.method !== "tools/call" || typeof params !== "object" || params === null || !("arguments" in params)) return message;
    const args = params.arguments;
    if (args === undefined || (typeof args === "object" && args !== null && !Array.isArray(args))) return message;
    if (typeof m.id === "string" || typeof m.id === "number") into.set(m.id, args);
    return { ...m, params: { ...params, arguments: {} } };
  };
  return Array.isArray(body) ? body.map(fix) : fix(body);
}
