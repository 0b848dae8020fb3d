/**
 * knot:tool's argument getters in the sandbox: the shared rules (./arg-rules.ts) over this run's
 * arguments. A refused or missing argument throws an Error whose `code` is "INVALID_ARGUMENT"
 * (catchable; uncaught, the run fails with that code).
 */
import { createArgumentGetters } from "./arg-rules.ts";
import { codedError, param } from "./runtime.ts";

export const argumentGetters = createArgumentGetters(param, (message) => codedError("INVALID_ARGUMENT", message));
