/**
 * `tool.run`: told once a saved user tool's run finished (ok or not), for its owner's sinks.
 * Sinks' own runs are not tool runs (and would otherwise feed themselves).
 */
import type { ToolRunner } from "../tools/tool-runner.ts";
import type { EventBus } from "./event-bus.ts";

export function withRunEvents(runner: ToolRunner, bus: () => EventBus): ToolRunner {
  return {
    ...runner,
    async run(principal, source, args, options) {
      const outcome = await runner.run(principal, source, args, options);
      if ("id" in source && "ownerId" in source && source.kind === "tool") {
        const data = {
          toolId: source.id, name: source.name, version: source.version, by: principal.user.name,
          outcome: outcome.ok ? "ok" : outcome.error.code, durationMs: Math.round(outcome.durationMs),
        };
        await bus().emitCommitted({ type: "tool.run", data, audience: { kind: "owner", userId: source.ownerId }, cause: principal });
      }
      return outcome;
    },
  };
}
