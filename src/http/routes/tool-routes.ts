import type { AuditLog } from "../../audit/audit-log.ts";
import { KnotError } from "../../errors.ts";
import { BUILTIN_PERMISSIONS, hasPermission, type Principal } from "../../identity/principal.ts";
import type { Services } from "../../services.ts";
import { maskedParameters, runOutcomeJson } from "../../tools/run-outcome.ts";
import type { RunSource, ToolRunner } from "../../tools/tool-runner.ts";
import type { UserToolsCatalog } from "../../tools/user-tools.ts";
import type { UserToolRecord } from "../../store/store.ts";
import { sendJson } from "../respond.ts";
import type { HttpContext, Route } from "../router.ts";

export interface ToolRouteDeps {
  readonly catalog: UserToolsCatalog;
  readonly runner: ToolRunner;
  readonly audit: AuditLog;
}

/** `/api/tools…`: the user-tool API the editor, the CLI and scripts use. */
export function toolRoutes(services: Services, deps: ToolRouteDeps): Route[] {
  const { catalog } = deps;
  const argsOf = (body: Record<string, unknown>) => {
    const args = body.args ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new KnotError("INVALID_ARGUMENT", "args must be an object", { where: "args" });
    return args as Record<string, unknown>;
  };
  return [
    { method: "GET", path: "/api/tools", access: "api", handle: async (ctx) => sendJson(ctx.res, 200, { tools: (await catalog.list(ctx.principal)).map((t) => describe(ctx.principal, t)) }) },
    {
      method: "POST", path: "/api/tools", access: "api",
      handle: async (ctx) => {
        const saved = await catalog.create(ctx.principal, await ctx.json());
        sendJson(ctx.res, 201, { tool: describe(ctx.principal, saved.tool, true), diagnostics: saved.diagnostics });
      },
    },
    {
      method: "POST", path: "/api/tools/check", access: "api",
      handle: async (ctx) => {
        const body = await ctx.json();
        sendJson(ctx.res, 200, { diagnostics: await catalog.check(ctx.principal, body as { code: string; language?: "js" | "ts"; kind?: "tool" | "lib" }) });
      },
    },
    {
      method: "POST", path: "/api/tools/run", access: "api",
      handle: async (ctx) => {
        const body = await ctx.json();
        if (!hasPermission(ctx.principal, BUILTIN_PERMISSIONS.toolsAuthor)) throw new KnotError("PERMISSION_DENIED", `permission denied: running drafts needs ${BUILTIN_PERMISSIONS.toolsAuthor}`);
        if (typeof body.code !== "string") throw new KnotError("INVALID_ARGUMENT", "code is required", { where: "code" });
        const source: RunSource = {
          name: typeof body.name === "string" ? body.name : "draft", code: String(body.code),
          language: body.language === "ts" ? "ts" : "js", parameters: parametersOf(body),
        };
        await runAndAnswer(ctx, deps, source, argsOf(body), true);
      },
    },
    { method: "GET", path: "/api/tools/:id", access: "api", handle: async (ctx) => sendJson(ctx.res, 200, { tool: describe(ctx.principal, await catalog.get(ctx.principal, ctx.params.id!), true) }) },
    {
      method: "PUT", path: "/api/tools/:id", access: "api",
      handle: async (ctx) => {
        const saved = await catalog.update(ctx.principal, ctx.params.id!, await ctx.json());
        sendJson(ctx.res, 200, { tool: describe(ctx.principal, saved.tool, true), diagnostics: saved.diagnostics });
      },
    },
    {
      method: "DELETE", path: "/api/tools/:id", access: "api",
      handle: async (ctx) => {
        await catalog.remove(ctx.principal, ctx.params.id!);
        sendJson(ctx.res, 200, { deleted: ctx.params.id });
      },
    },
    { method: "GET", path: "/api/tools/:id/versions", access: "api", handle: async (ctx) => sendJson(ctx.res, 200, { versions: await catalog.versions(ctx.principal, ctx.params.id!) }) },
    {
      method: "GET", path: "/api/tools/:id/versions/:version", access: "api",
      handle: async (ctx) => {
        const n = Number(ctx.params.version);
        if (!Number.isInteger(n) || n < 1) throw new KnotError("BAD_REQUEST", "version must be a positive integer");
        sendJson(ctx.res, 200, { version: await catalog.version(ctx.principal, ctx.params.id!, n) });
      },
    },
    {
      method: "POST", path: "/api/tools/:id/run", access: "api",
      handle: async (ctx) => {
        const tool = await catalog.get(ctx.principal, ctx.params.id!);
        if (tool.kind !== "tool") throw new KnotError("BAD_REQUEST", `"${tool.name}" is a lib: libs are imported by tools, not run`);
        await runAndAnswer(ctx, deps, tool, argsOf(await ctx.json()), false);
      },
    },
  ];
}

function parametersOf(body: Record<string, unknown>): RunSource["parameters"] {
  return Array.isArray(body.parameters) ? (body.parameters as RunSource["parameters"]) : [];
}

async function runAndAnswer(ctx: HttpContext, deps: ToolRouteDeps, source: RunSource | UserToolRecord, args: Record<string, unknown>, draft: boolean): Promise<void> {
  const started = performance.now();
  const abort = new AbortController();
  ctx.res.once("close", () => {
    if (!ctx.res.writableFinished) abort.abort();
  });
  let outcome;
  try {
    outcome = await deps.runner.run(ctx.principal, source, args, { signal: abort.signal, requestId: ctx.requestId });
  } catch (error) {
    const code = error instanceof KnotError ? String(error.code) : "INTERNAL";
    await deps.audit.record({ principal: ctx.principal, surface: "api", tool: draft ? `draft:${source.name}` : source.name, args, masked: maskedParameters(source.parameters), outcome: code, durationMs: performance.now() - started, requestId: ctx.requestId });
    throw error;
  }
  const json = runOutcomeJson(outcome);
  await deps.audit.record({
    principal: ctx.principal, surface: "api", tool: draft ? `draft:${source.name}` : source.name, args, masked: maskedParameters(source.parameters),
    outcome: outcome.ok ? "ok" : outcome.error.code, durationMs: outcome.durationMs, result: json.ok ? json.result : undefined, requestId: ctx.requestId,
  });
  sendJson(ctx.res, 200, json);
}

/** A tool as the API shows it; code only in single-tool answers. */
function describe(principal: Principal, tool: UserToolRecord, withCode = false) {
  const { code, ...rest } = tool;
  return { ...rest, mine: tool.ownerId === principal.user.id, ...(withCode ? { code } : {}) };
}
