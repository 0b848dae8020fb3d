/**
 * Every error the host raises on purpose is a KnotError with a stable `code`.
 * The table below is the one place a code is declared: its HTTP status, and whether its
 * message may be shown to a guest or an MCP client (all of ours are written to be; anything
 * that is not a KnotError is redacted to INTERNAL before it crosses a boundary).
 */
export const ERROR_CODES = {
  // configuration and plugin metadata
  CONFIG_INVALID: { status: 500, meaning: "the server configuration is malformed (names the key), or a plugin's required `[plugins.<name>]` key is missing" },
  METADATA_INVALID: { status: 500, meaning: "a plugin's `// /// script` block is malformed: names the plugin, the key and the line" },
  PLUGIN_COLLISION: { status: 500, meaning: "a plugin declares an MCP tool name another plugin (earlier by name) already owns, or a boot tool's name" },
  PLUGIN_LOAD_FAILED: { status: 500, meaning: "a plugin's `main.js` threw or failed to import, its code imported a plugin that then failed, or a peer in its `bin/` did not start and answer `initialize` in time" },
  PLUGIN_UNAVAILABLE: { status: 503, meaning: "a plugin's peer process crashed and is being restarted with backoff; retry shortly" },
  DEPENDENCY_MISSING: { status: 500, meaning: "a plugin's `dependencies` names a plugin that is not loaded (not installed, disabled or failed) or whose version is outside the range" },
  // requests
  BAD_REQUEST: { status: 400, meaning: "the request is malformed (body not an object, bad CLI usage)" },
  METHOD_NOT_ALLOWED: { status: 405, meaning: "the route does not take that HTTP method; `allow` names those it does" },
  NOT_ACCEPTABLE: { status: 406, meaning: "a 2026-07-28 `/mcp` POST whose `Accept` does not admit both `application/json` and `text/event-stream` (the answer may be either)" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: "an `/mcp` request body sent with a `Content-Encoding` (gzip, say): bodies are read as sent, so send it uncompressed" },
  UNSUPPORTED_PROTOCOL_VERSION: { status: 400, meaning: "the `MCP-Protocol-Version` header names a revision this server does not speak (JSON-RPC -32022; `data.supported` lists those a stateless request may name)" },
  HOST_NOT_ALLOWED: { status: 403, meaning: "the `Host` or `Origin` of an `/mcp` request names no host this server answers for (DNS-rebinding protection): list it in `mcp.allowed_hosts`" },
  INVALID_REQUEST_STATE: { status: 400, meaning: "an input round's `requestState` does not verify, has expired, or belongs to another user, tool or set of arguments (JSON-RPC -32602)" },
  INVALID_JSON: { status: 400, meaning: "the request body is not valid JSON" },
  INVALID_ARGUMENT: { status: 400, meaning: "an argument or field does not match what is declared; `where` names it" },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: "the request body is over the size limit (1 MiB by default)" },
  UNAUTHENTICATED: { status: 401, meaning: "no valid credential (answered with `WWW-Authenticate: Bearer`)" },
  PERMISSION_DENIED: { status: 403, meaning: "the caller (user ∩ token scopes) is not granted what the target requires; the target's code never ran" },
  NOT_ADDRESSABLE: { status: 404, meaning: "no declared `[[tool.knot.handlers]]` entry has that plugin and function name" },
  NOT_FOUND: { status: 404, meaning: "no such resource, or not visible to the caller" },
  UNKNOWN_TOOL: { status: 404, meaning: "no tool of that name is visible to the caller" },
  AMBIGUOUS_TOOL_NAME: { status: 400, meaning: "the bare name is held only by user tools shared with you: call one by the owner-qualified name the message lists (`alice__weekly_report`); a bare name never runs another author's tool" },
  CONFLICT: { status: 409, meaning: "the resource already exists, or changed since the version you edited" },
  STORE_VERSION: { status: 500, meaning: "the database was written by a newer knot-tools" },
  QUOTA_EXCEEDED: { status: 403, meaning: "the user already keeps as many tools, libs and sinks as one user may (`quotas.user_tools`, 200 by default): delete one first" },
  RATE_LIMITED: { status: 429, meaning: "too many runs; `retry-after` says when to try again" },
  CANCELLED: { status: 499, meaning: "the caller cancelled the run or went away" },
  INPUT_REQUIRED: { status: 428, meaning: "the tool asked for input (`ask()`, `elicit()`, `sample()`, `listRoots()`); over MCP the call ends as an input-required result (2026-07-28) or an elicitation/sampling request (2025-11-25) and the tool runs again with the answers; outside MCP there is no one to ask" },
  SHUTTING_DOWN: { status: 503, meaning: "the server is shutting down (SIGTERM): calls already running finish, new requests are refused; retry on another instance or after the restart" },
  // running code
  HANDLER_FAILED: { status: 500, meaning: "a plugin handler threw; the detail is only in the server log" },
  HANDLER_TIMEOUT: { status: 504, meaning: "a plugin handler did not finish by its deadline (30 s by default)" },
  TOOL_ERROR: { status: 422, meaning: "a tool reported an error (`returnError`) or threw one" },
  INTERNAL: { status: 500, meaning: "an unexpected failure; the detail is only in the server log" },
} as const;

export type HostErrorCode = keyof typeof ERROR_CODES;

/** Codes produced by the sandbox travel as plain strings; the host keeps them as they are. */
export type ErrorCode = HostErrorCode | (string & {});

export interface ErrorDetail {
  /** Where in an input the problem is, e.g. a plugin name, a manifest key, an argument. */
  readonly where?: string;
  readonly line?: number;
  readonly column?: number;
  readonly retryAfterSeconds?: number;
}

export class KnotError extends Error {
  override readonly name = "KnotError";
  readonly code: ErrorCode;
  readonly detail: ErrorDetail;

  constructor(code: ErrorCode, message: string, detail: ErrorDetail = {}) {
    super(message);
    this.code = code;
    this.detail = detail;
  }

  get status(): number {
    const known = (ERROR_CODES as Record<string, { status: number }>)[this.code];
    return known?.status ?? 500;
  }

  /** The only shape an error takes when it leaves the host: no stack, no cause. */
  toJSON(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }
}
