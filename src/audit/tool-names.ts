/**
 * What an audit row calls a user script. A saved tool or sink is named with its kind and owner
 * (`user:alice/report`, `sink:alice/notify`): a bare name could be a plugin tool's (an ordinary
 * user may give her own tool a gated plugin tool's name, and her row then read like a call of the
 * plugin tool) or another author's tool of the same name. Unsaved code from the editor is
 * `draft:<name>` (the row's user is its author). Plugin and boot tools keep their MCP names, and
 * plugin handlers their `plugin/handler`: no user script's name can take either shape.
 */
export interface AuditedScript {
  readonly name: string;
  /** Absent for a draft (never saved). */
  readonly ownerName?: string;
  readonly kind?: "tool" | "sink" | "lib";
}

export function scriptAuditName(script: AuditedScript): string {
  if (script.ownerName === undefined) return `draft:${script.name}`;
  return `${script.kind === "sink" ? "sink" : "user"}:${script.ownerName}/${script.name}`;
}
