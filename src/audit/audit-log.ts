/**
 * The audit log of every tool and handler call (003: masked, with a summary). Values of
 * parameters marked `secret` or `personal` are replaced by a keyed hash, so equal values still
 * correlate across rows but the raw value is never stored. Rows are hash-chained by the store,
 * written through a group-commit queue (audit-queue.ts), and bounded in size (audit-bounds.ts).
 *
 * A call must never go unaudited: if its row cannot be written as it is, a fallback row (tool,
 * user, outcome, `args: "[unrecordable]"`) is written instead, and both cases are counted.
 */
import { createHmac, randomBytes } from "node:crypto";
import { currentRequestScope } from "../http/request-scope.ts";
import type { Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import { canonicalJson } from "../store/audit-hash.ts";
import type { AuditEntryInput, Store } from "../store/store.ts";
import { assertJsonDepth } from "../validation/json-depth.ts";
import { auditAround, type AuditAround } from "./audit-around.ts";
import { boundArgs, clampNullable, clampText } from "./audit-bounds.ts";
import { createAuditJournalQueue, createAuditQueue, type AuditQueue } from "./audit-queue.ts";
import { maskAtPaths, maskPathSteps } from "./mask-paths.ts";

export interface AuditRecord {
  readonly principal: Principal | null;
  readonly surface: AuditEntryInput["surface"];
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Arguments whose values must be masked: names, or nested paths (`contact.phone`, `contacts[].phone`). */
  readonly masked?: ReadonlySet<string> | readonly string[];
  /**
   * Members of an object argument to mask, by the argument's name: paths inside it (`pin`,
   * `contact.phone`, `items[].token`), or "*" for every member (execute_tool's `arguments`, masked
   * by the target tool's flags). A value that does not have the declared shape is masked whole.
   */
  readonly maskedWithin?: Readonly<Record<string, readonly string[] | "*">>;
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
  /**
   * Appends one row and resolves once it is committed; never throws (a failure writes the
   * fallback row, or is logged), so auditing cannot break a call.
   */
  record(entry: AuditRecord): Promise<void>;
  /**
   * Runs one audited call and records its one row (audit-around.ts): the work answers its value
   * and outcome; a throw is recorded with its code (or `call.failure`) and rethrown.
   * @example
   * const result = await audit.around({ principal, surface: "http", tool: "demo/echo", args }, async () => {
   *   const value = await dispatch();
   *   return { value, outcome: "ok", result: value };
   * });
   */
  around: AuditAround;
  mask(value: unknown): string;
  /** Resolves when every row recorded so far is committed. */
  flushed(): Promise<void>;
}

/** What the audit log tells metrics about rows it could not write as given. */
export interface AuditLogEvents {
  /** A fallback `[unrecordable]` row was written in place of the real one. */
  fallback(): void;
  /** Not even the fallback row could be written. */
  lost(): void;
}

export const MASK_PREFIX = "masked:";
export const UNRECORDABLE = "[unrecordable]";

export async function createAuditLog(options: { store: Store; maskKey: string | null; logger: Logger; events?: AuditLogEvents }): Promise<AuditLog> {
  const key = options.maskKey ?? (await options.store.getOrCreateSetting("audit.mask_key", () => randomBytes(32).toString("base64url")));
  const mask = (value: unknown) => MASK_PREFIX + createHmac("sha256", key).update(stableText(value)).digest("base64url").slice(0, 22);
  await options.store.prepareAudit?.();
  const enqueue = options.store.enqueueAudit?.bind(options.store);
  const queue: AuditQueue<unknown> = enqueue ? createAuditJournalQueue(enqueue) : createAuditQueue(options.store);
  const log: AuditLog = {
    mask,
    flushed: () => queue.flushed(),
    around: auditAround((entry) => log.record(entry)),
    async record(entry) {
      const base = {
        at: new Date().toISOString(),
        userId: entry.principal?.user.id ?? null,
        tokenId: entry.principal?.tokenId ?? null,
        client: clampNullable(clientOf(entry)),
        surface: entry.surface,
        tool: clampText(entry.tool),
        outcome: clampText(entry.outcome, 64),
        durationMs: Math.round(entry.durationMs * 1000) / 1000,
        requestId: clampNullable(entry.requestId, 128),
        ...clientRequestIdMember(),
      };
      const fallbackRow: AuditEntryInput = { ...base, args: UNRECORDABLE, summary: null };
      let row: AuditEntryInput;
      try {
        row = { ...base, args: boundArgs(maskedArgs(entry, mask)), summary: summaryOf(entry.result) };
      } catch (error) {
        options.logger.error("audit row could not be built; writing the fallback row", { tool: base.tool, error });
        row = fallbackRow;
      }
      try {
        await queue.append(row);
        if (row === fallbackRow) options.events?.fallback();
        return;
      } catch (error) {
        if (row === fallbackRow) return lost(error);
        options.logger.error("audit append failed; writing the fallback row", { tool: base.tool, error });
      }
      try {
        await queue.append(fallbackRow);
        options.events?.fallback();
      } catch (error) {
        lost(error);
      }
      function lost(error: unknown) {
        options.events?.lost();
        options.logger.error("audit append failed, fallback row included", { tool: base.tool, error });
      }
    },
  };
  return log;
}

/** `masked` and `maskedWithin` marks (nested paths like `contact.phone`, see mask-paths.ts) applied to the args. */
function maskedArgs(entry: AuditRecord, mask: (value: unknown) => string): Record<string, unknown> {
  const paths: string[][] = [...(entry.masked ?? [])].map(maskPathSteps);
  const args: Record<string, unknown> = { ...entry.args };
  for (const [name, inner] of Object.entries(entry.maskedWithin ?? {})) {
    if (inner !== "*") {
      for (const path of inner) paths.push([name, ...maskPathSteps(path)]);
      continue;
    }
    // "*": every member of the object argument; anything else there is masked whole.
    const value = args[name];
    if (value === undefined) continue;
    args[name] = value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v)]))
      : mask(value);
  }
  return maskAtPaths(args, paths, mask);
}

/** The client's own `x-request-id`, when the request carried one (kept apart from the server's id). */
function clientRequestIdMember(): { clientRequestId?: string } {
  const id = currentRequestScope()?.clientRequestId;
  return id ? { clientRequestId: id } : {};
}

/** What the mask hashes: JSON text as before; canonical JSON when JSON.stringify cannot (too deep, a BigInt). */
function stableText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    try {
      return canonicalJson(value);
    } catch {
      return String(typeof value);
    }
  }
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
    if (typeof summary === "string") return summary.slice(0, 500).toWellFormed();
    if (summary === undefined || summary === null) return null;
    // A result's summary is outside input too: the same depth rule, recorded rather than thrown.
    try {
      assertJsonDepth(summary, "the result's summary");
    } catch (error) {
      return `[INVALID_ARGUMENT: ${(error as Error).message}]`;
    }
    return canonicalJson(boundArgs(summary, 2048)).slice(0, 500).toWellFormed();
  }
  return null;
}
