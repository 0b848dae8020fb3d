/**
 * `POST /api/runs`: the run panel's run, streamed. The same run as `POST /api/tools/:id/run` (or
 * `/api/tools/run` for a draft) — the real sandbox and loopback, as the requesting user, audited
 * the same way — but answered as NDJSON so the panel can show `progress()` and log lines while
 * the run goes on. Closing the request (the panel's Cancel) aborts the run.
 *
 * Body: `{ toolId, args }` for a saved tool, or `{ draft: { name?, code, language?, parameters? }, args }`.
 * Lines: `{type:"progress",done,total?,message?}`, `{type:"log",level,message}`, then one
 * `{type:"outcome", ok, result|error, log, durationMs}`, or `{type:"error",code,message}`.
 */
import type { ServerResponse } from "node:http";
import type { RunEvent } from "../../sandbox/protocol.ts";
import { KnotError } from "../errors.ts";
import { assertJsonDepth } from "../validation/json-depth.ts";
import { mustScopeUserTools } from "../http/routes/tool-routes.ts";
import type { Route } from "../http/router.ts";
import type { Services } from "../services.ts";
import { draftSource, runAudited } from "../tools/audited-run.ts";
import { runOutcomeJson } from "../tools/run-outcome.ts";
import type { RunSource } from "../tools/tool-runner.ts";

function objectOf(value: unknown, where: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new KnotError("INVALID_ARGUMENT", `${where} must be an object`, { where });
  return value as Record<string, unknown>;
}

function startStream(res: ServerResponse): (line: unknown) => void {
  return (line) => {
    if (!res.headersSent) {
      res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", "x-accel-buffering": "no" });
    }
    if (!res.writableEnded) res.write(`${JSON.stringify(line)}\n`);
  };
}

export function runStreamRoutes(services: Services): Route[] {
  return [{
    method: "POST", path: "/api/runs", access: "api",
    async handle(ctx) {
      const body = await ctx.json({ envelope: true });
      const args = objectOf(body.args, "args");
      assertJsonDepth(args, "args"); // the same bound as MCP arguments: the body around them may nest one more
      let source: RunSource;
      if (typeof body.toolId === "string") {
        mustScopeUserTools(ctx.principal);
        const saved = await services.catalog.get(ctx.principal, body.toolId);
        if (saved.kind === "lib") throw new KnotError("BAD_REQUEST", `"${saved.name}" is a lib: libs are imported by tools, not run`);
        if (saved.kind !== "tool") throw new KnotError("BAD_REQUEST", `"${saved.name}" is a sink: sinks run when the events they subscribe to happen, not on request`);
        source = saved;
      } else {
        source = draftSource(ctx.principal, objectOf(body.draft, "draft"), "draft.code");
      }
      const send = startStream(ctx.res);
      let outcome;
      try {
        outcome = await runAudited(services, { principal: ctx.principal, requestId: ctx.requestId, res: ctx.res, onEvent: (event: RunEvent) => send(event) }, source, args);
      } catch (error) {
        const known = error instanceof KnotError ? error : null;
        if (!ctx.res.headersSent) throw error;
        if (!known) services.logger.error("run failed", { requestId: ctx.requestId, error });
        send({ type: "error", code: known?.code ?? "INTERNAL", message: known?.message ?? "internal error" });
        ctx.res.end();
        return;
      }
      const json = runOutcomeJson(outcome);
      send({ type: "outcome", ...json });
      ctx.res.end();
    },
  }];
}
