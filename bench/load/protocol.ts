/** What bench/load.ts and its server child say to each other over IPC, and the tool names they share. */

/** The three kinds of call in the mix, and the tool each one calls. */
export const LOAD_TOOLS = Object.freeze({
  /** demo's MCP tool, run in the plugin pool. */
  plugin: "echo_word",
  /** A sandboxed user tool echoing its argument. */
  user: "load_echo",
  /** A sandboxed user tool calling demo's echo_word handler over the loopback (plugin:demo Widgets). */
  loopback: "load_widgets",
});

export type CallKind = keyof typeof LOAD_TOOLS;
export const CALL_KINDS: readonly CallKind[] = Object.freeze(["plugin", "user", "loopback"]);

/** The loopback's audit rows name the handler as `<plugin>/<fn>`. */
export const LOOPBACK_AUDIT_TOOL = "demo/echo_word";

export interface ServerSettings {
  readonly database: string;
  readonly users: number;
}

export interface ServerReady {
  readonly t: "ready";
  readonly url: string;
  readonly users: readonly { readonly name: string; readonly token: string }[];
}

export type ServerRequest = { readonly t: "stats" } | { readonly t: "stop" };

export interface ServerStats {
  readonly t: "stats";
  /** After a full garbage collection. */
  readonly heapUsedMb: number;
  /** The JS heap V8 holds from the OS (used or not), and memory outside it (buffers, native objects). */
  readonly heapTotalMb: number;
  readonly externalMb: number;
  readonly sandbox: { readonly workers: number; readonly busy: number; readonly queued: number; readonly restarts: number };
  readonly mcpSessions: number;
}
