/**
 * The one shape of an audited call — start the clock, run, map the outcome (or the error) to the
 * row's outcome, record exactly one row, then answer or rethrow — used by MCP tool calls, plugin
 * handler calls over HTTP and the loopback, plugin pages and user-tool runs over the API. The row
 * is committed before the caller gets the answer or the error, as before this wrapper existed.
 */
import { KnotError } from "../errors.ts";
import type { AuditRecord } from "./audit-log.ts";

/** Who calls what: the row's fixed fields, and its arguments as first known. */
export type AuditMeta = Pick<AuditRecord, "principal" | "surface" | "tool" | "args" | "masked" | "maskedWithin" | "requestId" | "client"> & {
  /** Aborts the work (the client went away, the call was cancelled); passed on as `call.signal`. */
  readonly signal?: AbortSignal;
};

/** What the work sees and may refine while it runs. */
export interface AuditCall {
  readonly signal: AbortSignal;
  /** The row's tool: the name as called, until the work knows what the name reached (see tool-names.ts). */
  tool: AuditRecord["tool"];
  /** The row's arguments and masks, as the work learns them (parsed, validated, the tool known). */
  args: AuditRecord["args"];
  masked: AuditRecord["masked"];
  maskedWithin: AuditRecord["maskedWithin"];
  /** The outcome to record if the work throws from here on; by default the error's code, or INTERNAL. */
  failure?: string;
}

/** How the work ended when it did not throw: its value, and the row's outcome (with the result for its summary). */
export interface Audited<T> {
  readonly value: T;
  readonly outcome: string;
  readonly result?: unknown;
  /** When the work measured its own duration (a sandbox run); else the wrapper's clock. */
  readonly durationMs?: number;
}

export type AuditAround = <T>(meta: AuditMeta, work: (call: AuditCall) => Promise<Audited<T>>) => Promise<T>;

const NEVER_ABORTED = new AbortController().signal;

/** The outcome of a call that threw: the coded error's code, else INTERNAL. */
function errorOutcome(error: unknown): string {
  return error instanceof KnotError ? String(error.code) : "INTERNAL";
}

/** `around` over a given `record` (the audit log's, or a wrapper's that counts rows). */
export function auditAround(record: (entry: AuditRecord) => Promise<void>): AuditAround {
  return async function around(meta, work) {
    const started = performance.now();
    const call: AuditCall = { signal: meta.signal ?? NEVER_ABORTED, tool: meta.tool, args: meta.args, masked: meta.masked, maskedWithin: meta.maskedWithin };
    const row = (outcome: string, result?: unknown, durationMs?: number) => record({
      principal: meta.principal, surface: meta.surface, tool: call.tool, args: call.args,
      ...(call.masked === undefined ? {} : { masked: call.masked }), ...(call.maskedWithin === undefined ? {} : { maskedWithin: call.maskedWithin }),
      outcome, durationMs: durationMs ?? performance.now() - started, result,
      ...(meta.requestId === undefined ? {} : { requestId: meta.requestId }), ...(meta.client === undefined ? {} : { client: meta.client }),
    });
    let done;
    try {
      done = await work(call);
    } catch (error) {
      await row(call.failure ?? errorOutcome(error));
      throw error;
    }
    await row(done.outcome, done.result, done.durationMs);
    return done.value;
  };
}
