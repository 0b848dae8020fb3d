/**
 * What the sandbox worker puts on the guest global before the prelude runs. The prelude captures
 * each of these and deletes it, so user code never sees them. Only strings cross.
 */
declare global {
  /** Report something to the worker: (kind, JSON payload); not waited for, answers nothing. */
  var __knot_emit: ((kind: string, payload: string) => void) | undefined;
  /** Start a knot:plugin call: (the guest's id, JSON request); the answer or refusal comes through deliver. */
  var __knot_call: ((id: string, request: string) => void) | undefined;
  /** Returns once the worker has handled every report made before it. */
  var __knot_wait: (() => string) | undefined;
}
export {};
