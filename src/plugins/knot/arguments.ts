/**
 * knot:tool's argument getters for plugin code: the shared rules (sandbox/guest/arg-rules.ts, the
 * same ones user tools use) over the current tool call's arguments. A refused or missing argument
 * is an INVALID_ARGUMENT (HTTP 400) naming it.
 */
import { createArgumentGetters } from "../../../sandbox/guest/arg-rules.ts";
import { KnotError } from "../../errors.ts";
import type { ToolState } from "../tool-state.ts";

export function pluginArgumentGetters(state: () => ToolState) {
  return createArgumentGetters(
    (name) => {
      const args = state().args;
      return Object.hasOwn(args, name) ? args[name] : undefined;
    },
    (message, where) => new KnotError("INVALID_ARGUMENT", message, { where }),
  );
}
