/**
 * What the sandbox worker puts on the guest global before the prelude runs. The prelude captures
 * each of these and deletes it, so user code never sees them. Only strings cross.
 */
declare global {
  /** Report something to the worker: (kind, JSON payload) → reply string (empty when none). */
  var __knot_emit: ((kind: string, payload: string) => string) | undefined;
  /** Start a knot:plugin call: JSON request → JSON reply `{"id":…}` or `{"error":{code,message}}`. */
  var __knot_call: ((request: string) => string) | undefined;
}
export {};
