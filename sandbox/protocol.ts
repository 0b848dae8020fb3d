/**
 * The contract between the host and the sandbox: what a run needs, what it answers.
 * Everything here is plain JSON data: it crosses a process boundary (host ⇄ sandbox worker).
 * This file is imported by both sides; it imports only the type of the caller's data, declared once
 * with the guest (guest/user-data.ts).
 */
import type { GuestUserData as GuestUser } from "./guest/user-data.ts";

/** Limits of one run. Units are in the names. */
export interface RunLimits {
  readonly heapMb: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly resultBytes: number;
  readonly logBytes: number;
  readonly loopbackCalls: number;
}

/** Modules one run may load (its own, plugin client modules and libs); the host's module set stops there too. */
export const MAX_MODULES_PER_RUN = 64;

/**
 * Characters of code one run may link: the tool and every module it loads, together. Linking runs on
 * the worker's own thread (parse, compile), so its cost is bounded here rather than left to the run's
 * limits, which cannot interrupt it: the tool and three libs at the save limit (256 KB each).
 */
export const MAX_MODULE_GRAPH_CHARS = 1_048_576;

export const DEFAULT_RUN_LIMITS: RunLimits = Object.freeze({
  heapMb: 64,
  cpuMs: 5_000,
  wallMs: 30_000,
  resultBytes: 1_048_576,
  logBytes: 65_536,
  loopbackCalls: 100,
});

/** The least each run limit may be (a run's job is refused below it; the server config checks the same). */
export const RUN_LIMIT_MINIMUMS = Object.freeze({ heapMb: 8, cpuMs: 1, wallMs: 1, resultBytes: 1, logBytes: 0, loopbackCalls: 0 });

/** The caller as inert data (declared once, for the guest too). */
export type { GuestUser };

/** Where `knot:plugin.call` goes. The token is held by the worker, never given to guest code. */
export interface LoopbackTarget {
  /** e.g. `http://127.0.0.1:7700` */
  readonly baseUrl: string;
  readonly token: string;
}

/**
 * How the guest calls the module's default export: a tool gets the request `{method, params, user}`;
 * a sink gets the event itself, `{id, type, at, data}` (then `params` IS the event). Set by the host
 * only (the tool runner, for the sink dispatcher); nothing a caller sends can choose it.
 */
export type RunEntry = "tool" | "sink";

/** Whether `value` is a RunEntry. Both sides check the job field with it. */
export const isRunEntry = (value: unknown): value is RunEntry => value === "tool" || value === "sink";

/** Whether `params` has exactly an event's shape (a sink run's argument). */
export function isSinkEvent(params: unknown): boolean {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return false;
  const event = params as Record<string, unknown>;
  const keys = Object.keys(event).sort().join(",");
  return keys === "at,data,id,type" && typeof event.id === "string" && typeof event.type === "string" && typeof event.at === "string";
}

/** Whether `value` is a module set's shape (RunJob.modules); the worker applies the import rules itself. */
export const isModuleSet = (value: unknown): value is Record<string, string | null> =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.values(value).every((source) => source === null || typeof source === "string");

export interface RunJob {
  /** Opaque id for logs and cancellation. */
  readonly runId: string;
  /** The tool's JavaScript (TypeScript is stripped by the host before it gets here). */
  readonly source: string;
  /** A name for stack traces and diagnostics, e.g. `tool:weather`. */
  readonly filename: string;
  /** Arguments: both `request.params` and the `knot:tool` context. */
  readonly params: Record<string, unknown>;
  readonly user: GuestUser;
  readonly loopback: LoopbackTarget | null;
  readonly limits: RunLimits;
  /** Echoed to plugin handlers as the `x-request-id` of loopback calls. */
  readonly requestId?: string;
  /** Absent means "tool". "sink" requires `params` to be the event (see isSinkEvent). */
  readonly entry?: RunEntry;
  /**
   * The tool's module set, resolved by the host before dispatch (specifier → source; null: this
   * caller may not import it). The worker links from it without asking back; a specifier missing
   * here still goes through `RunHooks.resolveModule`.
   */
  readonly modules?: Readonly<Record<string, string | null>>;
}

export interface LogLine {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly message: string;
}

/** What a tool answered. `return*` in knot:tool decides the kind; a plain return is text or json. */
export type ToolResult =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "toon"; readonly text: string }
  | { readonly kind: "content"; readonly content: readonly ContentBlock[] }
  | { readonly kind: "none" };

export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string }
  | { readonly type: "audio"; readonly data: string; readonly mimeType: string }
  | { readonly type: "resource"; readonly resource: { readonly uri: string; readonly mimeType?: string; readonly text?: string; readonly blob?: string } };

export interface SafeError {
  /** SCREAMING_SNAKE code, see sandbox/errors.ts. */
  readonly code: string;
  readonly message: string;
}

export type RunOutcome =
  | { readonly ok: true; readonly result: ToolResult; readonly log: readonly LogLine[]; readonly durationMs: number }
  | { readonly ok: false; readonly error: SafeError; readonly log: readonly LogLine[]; readonly durationMs: number };

/** Sent while a run is going on (knot:tool progress/log); forwarded to MCP clients. */
export type RunEvent =
  | { readonly type: "progress"; readonly done: number; readonly total?: number; readonly message?: string }
  | { readonly type: "log"; readonly level: LogLine["level"]; readonly message: string };

/** Host-side hooks of one run. */
export interface RunHooks {
  /**
   * Source of an importable module (`plugin:<name>`, `plugin:<name>/<stem>`, `lib:<name>`), or null
   * when the caller may not import it. Called by the worker's linker, through the pool, for a
   * specifier that `job.modules` does not hold.
   */
  resolveModule(specifier: string): Promise<string | null> | string | null;
  onEvent?(event: RunEvent): void;
  /** The run was handed to a worker (again, after a re-queue): what lives for the run's duration starts now. */
  onDispatch?(): void;
  signal?: AbortSignal;
}

/** Header names and routes both sides agree on. */
export const LOOPBACK_TOKEN_HEADER = "authorization";
export const REQUEST_ID_HEADER = "x-request-id";
export const PLUGIN_ROUTE_PREFIX = "/plugins/";
