/**
 * One user-tool run on behalf of an HTTP request, as every API surface does it: the run stops when
 * the client goes away, and the run (or its refusal) is audited exactly once with secret and
 * personal arguments masked.
 */
import type { ServerResponse } from "node:http";
import type { RunEvent, RunOutcome } from "../../sandbox/protocol.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import { scriptAuditName } from "../audit/tool-names.ts";
import { KnotError } from "../errors.ts";
import { BUILTIN_PERMISSIONS, hasPermission, type Principal } from "../identity/principal.ts";
import { maskedParameters, runOutcomeJson } from "./run-outcome.ts";
import type { RunSource, ToolRunner } from "./tool-runner.ts";
import { parseDraftInput } from "./user-tool-input.ts";

export interface AuditedRunRequest {
  readonly principal: Principal;
  readonly requestId: string;
  /** The response whose closing before the end cancels the run. */
  readonly res: ServerResponse;
  readonly onEvent?: (event: RunEvent) => void;
}

export async function runAudited(deps: { runner: ToolRunner; audit: AuditLog }, request: AuditedRunRequest, source: RunSource, args: Record<string, unknown>): Promise<RunOutcome> {
  const abort = new AbortController();
  request.res.once("close", () => {
    if (!request.res.writableFinished) abort.abort();
  });
  const meta = { principal: request.principal, surface: "api", tool: scriptAuditName(source), args, masked: maskedParameters(source.parameters), requestId: request.requestId, signal: abort.signal } as const;
  return deps.audit.around(meta, async (call) => {
    const outcome = await deps.runner.run(request.principal, source, args, {
      signal: call.signal, requestId: request.requestId, ...(request.onEvent ? { onEvent: request.onEvent } : {}),
    });
    const json = runOutcomeJson(outcome);
    return { value: outcome, outcome: outcome.ok ? "ok" : outcome.error.code, durationMs: outcome.durationMs, result: json.ok ? json.result : undefined };
  });
}

/**
 * Unsaved code from the editor: `{ name?, code, language?, parameters? }`; needs the author
 * permission. Name, code, language and parameters are checked exactly as a saved tool's.
 */
export function draftSource(principal: Principal, draft: Record<string, unknown>, where = "code"): RunSource {
  if (!hasPermission(principal, BUILTIN_PERMISSIONS.toolsAuthor)) throw new KnotError("PERMISSION_DENIED", `permission denied: running drafts needs ${BUILTIN_PERMISSIONS.toolsAuthor}`);
  if (typeof draft.code !== "string") throw new KnotError("INVALID_ARGUMENT", `${where} is required`, { where });
  const { name, code, language, parameters } = parseDraftInput(draft);
  return { name, code, language, parameters };
}
