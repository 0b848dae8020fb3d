/**
 * The audit log of every tool and handler call (003: masked, with a summary). Values of
 * parameters marked `secret` or `personal` are replaced by a keyed hash, so equal values still
 * correlate across rows but the raw value is never stored. Rows are hash-chained by the store.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import type { AuditEntryInput, Store } from "../store/store.ts";

export interface AuditRecord {
  readonly principal: Principal | null;
  readonly surface: AuditEntryInput["surface"];
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Argument names whose values must be masked. */
  readonly masked?: ReadonlySet<string> | readonly string[];
  /** "ok" or an error code. */
  readonly outcome: string;
  readonly durationMs: number;
  /** The result value, to take its `summary` key from. */
  readonly result?: unknown;
  readonly requestId?: string | null;
  /** MCP client name and version, from `initialize`. */
  readonly client?: string | null;
}

export interface AuditLog {
  /** Appends one row; never throws (a failure is logged), so auditing cannot break a call. */
  record(entry: AuditRecord): Promise<void>;
  mask(value: unknown): string;
}

export const MASK_PREFIX = "masked:";

export async function createAuditLog(options: { store: Store; maskKey: string | null; logger: Logger }): Promise<AuditLog> {
  const key = options.maskKey ?? (await options.store.getOrCreateSetting("audit.mask_key", () => randomBytes(32).toString("base64url")));
  const mask = (value: unknown) => MASK_PREFIX + createHmac("sha256", key).update(JSON.stringify(value) ?? "undefined").digest("base64url").slice(0, 22);
  return {
    mask,
    async record(entry) {
      const masked = new Set(entry.masked ?? []);
      const args = Object.fromEntries(Object.entries(entry.args).map(([name, value]) => [name, masked.has(name) ? mask(value) : value]));
      try {
        await options.store.appendAudit({
          at: new Date().toISOString(),
          userId: entry.principal?.user.id ?? null,
          tokenId: entry.principal?.tokenId ?? null,
          client: clientOf(entry),
          surface: entry.surface,
          tool: entry.tool,
          args,
          outcome: entry.outcome,
          durationMs: Math.round(entry.durationMs * 1000) / 1000,
          summary: summaryOf(entry.result),
          requestId: entry.requestId ?? null,
        });
      } catch (error) {
        options.logger.error("audit append failed", { tool: entry.tool, error });
      }
    },
  };
}

/** A call through an OAuth connection records the connection's client name (with the MCP client's, if known). */
function clientOf(entry: AuditRecord): string | null {
  const connection = entry.principal?.clientName ?? null;
  if (connection === null) return entry.client ?? null;
  return entry.client && entry.client !== connection ? `${connection} (${entry.client})` : connection;
}

function summaryOf(result: unknown): string | null {
  if (result && typeof result === "object" && !Array.isArray(result)) {
    const summary = (result as Record<string, unknown>).summary;
    if (typeof summary === "string") return summary.slice(0, 500);
    if (summary !== undefined && summary !== null) return JSON.stringify(summary).slice(0, 500);
  }
  return null;
}
