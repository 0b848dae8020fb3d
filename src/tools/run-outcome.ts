import type { RunOutcome } from "../../sandbox/protocol.ts";
import { resultValue } from "../plugins/plugin-pool.ts";

/** The API's and the CLI's shape of a run: `{ok, result | error{code,message}, log, durationMs}`. */
export function runOutcomeJson(outcome: RunOutcome) {
  const durationMs = Math.round(outcome.durationMs * 10) / 10;
  if (!outcome.ok) return { ok: false as const, error: outcome.error, log: outcome.log, durationMs };
  return { ok: true as const, result: resultValue(outcome.result), resultKind: outcome.result.kind, log: outcome.log, durationMs };
}

/**
 * Paths of the arguments the audit log masks: a parameter marked `secret`/`personal` by its name,
 * a nested one by its path (`contact.phone`, `contacts[].phone`, `tokens[]`; see audit/mask-paths.ts).
 */
export function maskedParameters(parameters: readonly MaskableParameter[] = [], prefix = ""): string[] {
  return parameters.flatMap((p) => maskedWithinShape(p, `${prefix}${p.name}`));
}

interface MaskableShape {
  secret?: boolean;
  personal?: boolean;
  properties?: readonly MaskableParameter[];
  items?: MaskableShape;
}
interface MaskableParameter extends MaskableShape {
  name: string;
}

function maskedWithinShape(shape: MaskableShape, path: string): string[] {
  if (shape.secret === true || shape.personal === true) return [path];
  return [
    ...(shape.properties ? maskedParameters(shape.properties, `${path}.`) : []),
    ...(shape.items ? maskedWithinShape(shape.items, `${path}[]`) : []),
  ];
}
