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
import type { Route } from "../http/router.ts";
import { BUILTIN_PERMISSIONS, hasPermission } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import type { UserToolParameter } from "../store/store.ts";
import { maskedParameters, runOutcomeJson } from "../tools/run-outcome.ts";
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
      const body = await ctx.json();
      const args = objectOf(body.args, "args");
      let source: RunSource;
      let tool: string;
      if (typeof body.toolId === "string") {
        const saved = await services.catalog.get(ctx.principal, body.toolId);
        if (saved.kind !== "tool") throw new KnotError("BAD_REQUEST", `"${saved.name}" is a lib: libs are imported by tools, not run`);
        source = saved;
        tool = saved.name;
      } else {
        const draft = objectOf(body.draft, "draft");
        if (!hasPermission(ctx.principal, BUILTIN_PERMISSIONS.toolsAuthor)) throw new KnotError("PERMISSION_DENIED", `permission denied: running drafts needs ${BUILTIN_PERMISSIONS.toolsAuthor}`);
        if (typeof draft.code !== "string") throw new KnotError("INVALID_ARGUMENT", "draft.code is required", { where: "draft.code" });
        source = {
          name: typeof draft.name === "string" && draft.name !== "" ? draft.name : "draft", code: draft.code,
          language: draft.language === "ts" ? "ts" : "js", parameters: Array.isArray(draft.parameters) ? (draft.parameters as UserToolParameter[]) : [],
        };
        tool = `draft:${source.name}`;
      }
      const abort = new AbortController();
      ctx.res.once("close", () => {
        if (!ctx.res.writableFinished) abort.abort();
      });
      const send = startStream(ctx.res);
      const masked = maskedParameters(source.parameters);
      const started = performance.now();
      const audit = (outcome: string, durationMs: number, result?: unknown) =>
        services.audit.record({ principal: ctx.principal, surface: "api", tool, args, masked, outcome, durationMs, result, requestId: ctx.requestId });
      let outcome;
      try {
        outcome = await services.runner.run(ctx.principal, source, args, {
          signal: abort.signal, requestId: ctx.requestId, onEvent: (event: RunEvent) => send(event),
        });
      } catch (error) {
        const known = error instanceof KnotError ? error : null;
        await audit(known ? String(known.code) : "INTERNAL", performance.now() - started);
        if (!ctx.res.headersSent) throw error;
        if (!known) services.logger.error("run failed", { requestId: ctx.requestId, error });
        send({ type: "error", code: known?.code ?? "INTERNAL", message: known?.message ?? "internal error" });
        ctx.res.end();
        return;
      }
      const json = runOutcomeJson(outcome);
      await audit(outcome.ok ? "ok" : outcome.error.code, outcome.durationMs, json.ok ? json.result : undefined);
      send({ type: "outcome", ...json });
      ctx.res.end();
    },
  }];
}
