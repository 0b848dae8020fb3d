/**
 * Why: one author sharing hundreds of tools with everyone puts each of them in every user's
 * listing, and listings are read again after every write. Reading each row whole (parameters up
 * to 64 KiB, code up to 256 KB) and building a fresh record per row and user made a listing cost
 * and keep memory in proportion to users × shared tools. Records are frozen and the same for every
 * reader: a listing reads each tool's stamp (id, version, owner) and only the tools whose stamp
 * changed are read whole, once for everyone.
 */
import type { UserToolSummary } from "../store.ts";
import { toUserToolSummary } from "./records.ts";
import type { SqlRow } from "./sql-client.ts";

/** Records kept at most; past it the table starts over (tools no longer stored drop out then). */
const MAX_INTERNED = 20_000;

/** The columns a stamp row has (`owner_name` from the owner's row). */
export const STAMP_COLUMNS = ["id", "version", "updated_at"] as const;

export interface SummaryInterner {
  /** The summaries of `stamps` in their order; `load` reads whole summary rows by id (a tool deleted meanwhile is left out). */
  of(stamps: readonly SqlRow[], load: (ids: string[]) => Promise<readonly SqlRow[]>): Promise<UserToolSummary[]>;
}

// Every save moves the version; a renamed owner changes the name shared tools are called by.
const stampOf = (row: SqlRow) => `${String(row.version)}\u0000${String(row.updated_at)}\u0000${String(row.owner_name)}`;

export function createSummaryInterner(): SummaryInterner {
  const byId = new Map<string, { stamp: string; summary: UserToolSummary }>();
  const keep = (row: SqlRow): UserToolSummary => {
    const summary = toUserToolSummary(row);
    if (byId.size >= MAX_INTERNED) byId.clear();
    byId.set(summary.id, { stamp: stampOf(row), summary });
    return summary;
  };
  return {
    async of(stamps, load) {
      const stale = stamps.filter((row) => byId.get(String(row.id))?.stamp !== stampOf(row)).map((row) => String(row.id));
      const fresh = new Map<string, UserToolSummary>();
      if (stale.length > 0) for (const row of await load(stale)) fresh.set(String(row.id), keep(row));
      const out: UserToolSummary[] = [];
      for (const row of stamps) {
        const id = String(row.id);
        const summary = fresh.get(id) ?? byId.get(id)?.summary;
        if (summary !== undefined) out.push(summary);
      }
      return out;
    },
  };
}
