import { describeUserTool } from "../../tools/describe-tool.ts";
import type { AuditLog } from "../../audit/audit-log.ts";
import { KnotError } from "../../errors.ts";
import { assertJsonDepth } from "../../validation/json-depth.ts";
import { BUILTIN_PERMISSIONS, type Principal } from "../../identity/principal.ts";
import { scopeAllows } from "../../identity/scopes.ts";
import { draftSource, runAudited } from "../../tools/audited-run.ts";
import { runOutcomeJson } from "../../tools/run-outcome.ts";
import { RUN_USER_TOOLS_SCOPE, type RunSource, type ToolRunner } from "../../tools/tool-runner.ts";
import { parseToolParameters } from "../../tools/user-tool-input.ts";
import { callableName } from "../../tools/tool-names.ts";
import type { UserToolsCatalog } from "../../tools/user-tools.ts";
import type { UserToolRecord } from "../../store/store.ts";
import { sendJson } from "../respond.ts";
import type { HttpContext, Route } from "../router.ts";

export interface ToolRouteDeps {
  readonly catalog: UserToolsCatalog;
  readonly runner: ToolRunner;
  readonly audit: AuditLog;
}

/**
 * Reading user tools on the API is ungated for a full credential (the web UI lists what a person may
 * run, and shows a shared tool's code before it is run); a scoped one must name user tools at all
 * (`knot.tools.author` or `knot.tools.run`): a token narrowed to `plugin.metrics.*` reads no code
 * (the /api twin of issue 10 item 5). MCP's `list_user_tools`/`get_user_tool` are authoring tools
 * for assistants and stay behind `knot.tools.author`; assistants running tools list them with
 * `tools/list`.
 */
export function mustScopeUserTools(principal: Principal): void {
  if (scopeAllows(principal.scopes, BUILTIN_PERMISSIONS.toolsAuthor) || scopeAllows(principal.scopes, RUN_USER_TOOLS_SCOPE)) return;
  throw new KnotError("PERMISSION_DENIED", `permission denied: the token's scopes include neither ${BUILTIN_PERMISSIONS.toolsAuthor} nor ${RUN_USER_TOOLS_SCOPE}`);
}

/** `/api/tools…`: the user-tool API the editor, the CLI and scripts use. */
export function toolRoutes(deps: ToolRouteDeps): Route[] {
  const { catalog } = deps;
  const argsOf = (body: Record<string, unknown>) => {
    const args = body.args ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new KnotError("INVALID_ARGUMENT", "args must be an object", { where: "args" });
    assertJsonDepth(args, "args"); // the same bound as MCP arguments: the body around them may nest one more
    return args as Record<string, unknown>;
  };
  return [
    { method: "GET", path: "/api/tools", access: "api", handle: async (ctx) => {
      mustScopeUserTools(ctx.principal);
      sendJson(ctx.res, 200, { tools: (await catalog.list(ctx.principal)).map((t) => describeUserTool(ctx.principal, t)) });
    } },
    {
      method: "POST", path: "/api/tools", access: "api",
      handle: async (ctx) => {
        const saved = await catalog.create(ctx.principal, await ctx.json());
        sendJson(ctx.res, 201, { tool: describeUserTool(ctx.principal, saved.tool, true), diagnostics: saved.diagnostics });
      },
    },
    {
      method: "POST", path: "/api/tools/check", access: "api",
      handle: async (ctx) => {
        mustScopeUserTools(ctx.principal);
        const body = await ctx.json();
        // Parameters, when sent, are checked as a saved tool's are (the same errors as saving).
        if (body.parameters !== undefined) parseToolParameters(body.parameters);
        sendJson(ctx.res, 200, { diagnostics: await catalog.check(ctx.principal, body as { code: string; language?: "js" | "ts"; kind?: "tool" | "lib" }) });
      },
    },
    {
      method: "POST", path: "/api/tools/run", access: "api",
      handle: async (ctx) => {
        const body = await ctx.json({ envelope: true });
        const source = draftSource(ctx.principal, body);
        await runAndAnswer(ctx, deps, source, argsOf(body));
      },
    },
    { method: "GET", path: "/api/tools/:id", access: "api", handle: async (ctx) => {
      mustScopeUserTools(ctx.principal);
      sendJson(ctx.res, 200, { tool: describeUserTool(ctx.principal, await catalog.get(ctx.principal, ctx.params.id!), true) });
    } },
    {
      method: "PUT", path: "/api/tools/:id", access: "api",
      handle: async (ctx) => {
        const saved = await catalog.update(ctx.principal, ctx.params.id!, await ctx.json());
        sendJson(ctx.res, 200, { tool: describeUserTool(ctx.principal, saved.tool, true), diagnostics: saved.diagnostics });
      },
    },
    {
      method: "DELETE", path: "/api/tools/:id", access: "api",
      handle: async (ctx) => {
        await catalog.remove(ctx.principal, ctx.params.id!);
        sendJson(ctx.res, 200, { deleted: ctx.params.id });
      },
    },
    { method: "GET", path: "/api/tools/:id/versions", access: "api", handle: async (ctx) => {
      mustScopeUserTools(ctx.principal);
      sendJson(ctx.res, 200, { versions: await catalog.versions(ctx.principal, ctx.params.id!) });
    } },
    {
      method: "GET", path: "/api/tools/:id/versions/:version", access: "api",
      handle: async (ctx) => {
        mustScopeUserTools(ctx.principal);
        const n = Number(ctx.params.version);
        if (!Number.isInteger(n) || n < 1) throw new KnotError("BAD_REQUEST", "version must be a positive integer");
        sendJson(ctx.res, 200, { version: await catalog.version(ctx.principal, ctx.params.id!, n) });
      },
    },
    {
      method: "GET", path: "/api/tools/:id/libs", access: "api",
      handle: async (ctx) => {
        mustScopeUserTools(ctx.principal);
        sendJson(ctx.res, 200, { pins: await catalog.libPins(ctx.principal, ctx.params.id!) });
      },
    },
    {
      // "Update libs": re-pin every lib: import to what it means now (owner only; a new version when a pin changed).
      method: "POST", path: "/api/tools/:id/libs", access: "api",
      handle: async (ctx) => {
        const saved = await catalog.updateLibs(ctx.principal, ctx.params.id!);
        sendJson(ctx.res, 200, {
          tool: describeUserTool(ctx.principal, saved.tool, true), changed: saved.changed, diagnostics: saved.diagnostics,
          pins: await catalog.libPins(ctx.principal, saved.tool.id),
        });
      },
    },
    {
      method: "POST", path: "/api/tools/:id/run", access: "api",
      handle: async (ctx) => {
        mustScopeUserTools(ctx.principal); // before the lookup: its answer names the tool
        const tool = await catalog.get(ctx.principal, ctx.params.id!);
        if (tool.kind !== "tool") throw new KnotError("BAD_REQUEST", tool.kind === "sink" ? `"${tool.name}" is a sink: sinks run on the events they subscribe to, not on demand` : `"${tool.name}" is a lib: libs are imported by tools, not run`);
        await runAndAnswer(ctx, deps, tool, argsOf(await ctx.json({ envelope: true })));
      },
    },
  ];
}

async function runAndAnswer(ctx: HttpContext, deps: ToolRouteDeps, source: RunSource | UserToolRecord, args: Record<string, unknown>): Promise<void> {
  const outcome = await runAudited(deps, { principal: ctx.principal, requestId: ctx.requestId, res: ctx.res }, source, args);
  sendJson(ctx.res, 200, runOutcomeJson(outcome));
}

