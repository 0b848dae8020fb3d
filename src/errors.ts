/**
 * Every error the host raises on purpose is a KnotError with a stable `code`.
 * The table below is the one place a code is declared: its HTTP status, and whether its
 * message may be shown to a guest or an MCP client (all of ours are written to be; anything
 * that is not a KnotError is redacted to INTERNAL before it crosses a boundary).
 */
export const ERROR_CODES = {
  // configuration and plugin metadata
  CONFIG_INVALID: { status: 500, meaning: "the server configuration is malformed" },
  METADATA_INVALID: { status: 500, meaning: "a plugin's metadata block is malformed" },
  PLUGIN_COLLISION: { status: 500, meaning: "a plugin declares a tool name another plugin already owns" },
  PLUGIN_LOAD_FAILED: { status: 500, meaning: "a plugin's code could not be imported (or its peers could not start)" },
  PLUGIN_UNAVAILABLE: { status: 503, meaning: "a plugin's peer process is down and being restarted; retry shortly" },
  DEPENDENCY_MISSING: { status: 500, meaning: "a plugin's dependency is not loaded or is too old" },
  // requests
  BAD_REQUEST: { status: 400, meaning: "the request is malformed" },
  INVALID_JSON: { status: 400, meaning: "the request body is not valid JSON" },
  INVALID_ARGUMENT: { status: 400, meaning: "an argument does not match the declared parameters" },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: "the request body is over the size limit" },
  UNAUTHENTICATED: { status: 401, meaning: "no valid credential was presented" },
  PERMISSION_DENIED: { status: 403, meaning: "the caller is not granted what the target requires" },
  NOT_ADDRESSABLE: { status: 404, meaning: "no declared handler has that plugin and function name" },
  NOT_FOUND: { status: 404, meaning: "no such resource (or not visible to the caller)" },
  UNKNOWN_TOOL: { status: 404, meaning: "no tool of that name is visible to the caller" },
  AMBIGUOUS_TOOL_NAME: { status: 400, meaning: "a bare name only tools shared by others hold: call one by its owner-qualified name" },
  CONFLICT: { status: 409, meaning: "the resource already exists or changed meanwhile" },
  STORE_VERSION: { status: 500, meaning: "the database was written by a newer knot-tools" },
  RATE_LIMITED: { status: 429, meaning: "too many runs; retry later" },
  CANCELLED: { status: 499, meaning: "the caller cancelled the run or went away" },
  INPUT_REQUIRED: { status: 428, meaning: "the tool asked the MCP client for input; the call ends as input-required and runs again with the answers" },
  SHUTTING_DOWN: { status: 503, meaning: "the server is shutting down and takes no new work; retry on another instance or after the restart" },
  // running code
  HANDLER_FAILED: { status: 500, meaning: "a plugin handler threw; details are in the server log" },
  HANDLER_TIMEOUT: { status: 504, meaning: "a plugin handler did not finish by its deadline" },
  TOOL_ERROR: { status: 422, meaning: "the tool reported an error (returnError or a thrown error)" },
  INTERNAL: { status: 500, meaning: "an unexpected failure; details are in the server log" },
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

export function isKnotError(value: unknown): value is KnotError {
  return value instanceof KnotError;
}

/** Turns anything thrown into something safe to show; non-KnotErrors lose their message. */
export function redact(error: unknown): { code: string; message: string } {
  if (error instanceof KnotError) return error.toJSON();
  return { code: "INTERNAL", message: "internal error" };
}
