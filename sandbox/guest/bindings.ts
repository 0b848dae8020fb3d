/**
 * The names both sides of the isolate wall agree on: the globals the worker installs for the
 * prelude, the kinds of report the guest sends, and the guest-side size caps. Pure data; imported
 * by guest modules and by the worker.
 */
export const GLOBAL_NAMES = Object.freeze({
  emit: "__knot_emit",
  call: "__knot_call",
  /** Returns once the worker has handled every report queued before it (see GUEST_CAPS.reportsPerWait). */
  wait: "__knot_wait",
  /** Target of the worker's rewrite of `import(x)`; always rejects with MODULE_NOT_ALLOWED. */
  dynamicImport: "__knot_dynamic_import",
  /** Where the guest bundle leaves its modules for the worker; deleted before any user code runs. */
  handoff: "__knot_guest",
} as const);

export const EMIT_KINDS = Object.freeze({
  /** console.* line: {level, message} */
  console: "console",
  /** knot:tool log(): {level, message} */
  log: "log",
  /** knot:tool progress(): {done, total?, message?} */
  progress: "progress",
  /** the run's verdict: {ok:true, result} | {ok:false, error:{code, message}} (the handler's, or its last return*'s; read by the worker with takeFinished) */
  finish: "finish",
  /** the runtime made a coded error the guest may catch: {code, message} */
  coded: "coded",
} as const);

export const GUEST_CAPS = Object.freeze({
  /** knot:plugin.call request (params JSON included). */
  callRequestChars: 1_048_576,
  progressMessageChars: 1_000,
  /** All of a run's progress messages together; past it, progress reports only its numbers. */
  progressMessageTotalChars: 65_536,
  /** progress() reports per run; later ones are dropped. */
  progressEvents: 10_000,
  errorMessageChars: 2_000,
  /** Coded errors a run reports (so a top-level throw of one keeps its code); later ones keep theirs only while caught. */
  codedMessages: 1_000,
  /**
   * Reports (log lines, progress, coded errors, calls) the guest queues for the worker before it
   * waits for the worker to have handled them: the worker's thread drains its queue in one go, so
   * a loop queuing faster than that would hold it (no timers, no heartbeat) and grow its memory.
   */
  reportsPerWait: 64,
  nameChars: 128,
} as const);

/** The one wording of LOOPBACK_LIMIT, whichever side (the guest past the limit + 1, the worker at it) refuses. */
export const loopbackLimitMessage = (limit: number): string => `the tool made more than ${limit} knot:plugin calls`;

/**
 * The reserved argument the host puts a run's input-round answers in (src/mcp/input-rounds.ts).
 * Here, not in knot:tool: every export of a guest module is visible to user code.
 */
export const GUEST_INPUT_PARAM = "__knot_input";
/** The key of a run's json result that carries the questions it ended with (src/mcp/input-rounds.ts). */
export const GUEST_QUESTIONS_KEY = "__knot_input_required";
