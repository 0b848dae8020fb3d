import type { RunOutcome } from "../../sandbox/protocol.ts";
import { resultValue } from "../plugins/plugin-pool.ts";

/** The API's and the CLI's shape of a run: `{ok, result | error{code,message}, log, durationMs}`. */
export function runOutcomeJson(outcome: RunOutcome) {
  const durationMs = Math.round(outcome.durationMs * 10) / 10;
  if (!outcome.ok) return { ok: false as const, error: outcome.error, log: outcome.log, durationMs };
  return { ok: true as const, result: resultValue(outcome.result), resultKind: outcome.result.kind, log: outcome.log, durationMs };
}

/** Names of parameters whose values the audit log masks. */
export function maskedParameters(parameters: readonly { name: string; secret?: boolean; personal?: boolean }[] = []): string[] {
  return parameters.filter((p) => p.secret === true || p.personal === true).map((p) => p.name);
}
