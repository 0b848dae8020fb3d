/**
 * "Every call audited exactly once", checked on the database after the server has closed: one
 * `mcp` row per call made, per tool; one `loopback` row per loopback call, each carrying the
 * request id of exactly one `load_widgets` MCP row; no other rows; and the hash chain verifies.
 */
import { DatabaseSync } from "node:sqlite";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { openStore } from "../../src/store/index.ts";
import { LOAD_TOOLS, LOOPBACK_AUDIT_TOOL, type CallKind } from "./protocol.ts";

export interface AuditCheck {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

export async function checkAudit(database: string, made: Record<CallKind, number>, expectOk: boolean): Promise<AuditCheck> {
  const db = new DatabaseSync(database, { readOnly: true });
  const lines: string[] = [];
  let ok = true;
  const expect = (label: string, actual: number, wanted: number) => {
    const good = actual === wanted;
    ok &&= good;
    lines.push(`${good ? "ok  " : "FAIL"} ${label}: ${actual} (expected ${wanted})`);
  };
  const count = (sql: string, ...params: string[]) => Number((db.prepare(sql).get(...params) as { n: number }).n);
  // A row names a user tool with its owner (`user:<owner>/load_echo`, src/audit/tool-names.ts): every bench user calls its own.
  const named = { plugin: LOAD_TOOLS.plugin, user: `user:*/${LOAD_TOOLS.user}`, loopback: `user:*/${LOAD_TOOLS.loopback}` };
  try {
    for (const kind of ["plugin", "user", "loopback"] as const) {
      const tool = named[kind];
      expect(`mcp rows for ${tool}`, count("SELECT COUNT(*) AS n FROM audit WHERE surface = 'mcp' AND tool GLOB ?", tool), made[kind]);
      if (expectOk) expect(`  of them not "ok"`, count("SELECT COUNT(*) AS n FROM audit WHERE surface = 'mcp' AND tool GLOB ? AND outcome <> 'ok'", tool), 0);
    }
    expect("distinct request ids of mcp rows", count("SELECT COUNT(DISTINCT request_id) AS n FROM audit WHERE surface = 'mcp'"), made.plugin + made.user + made.loopback);
    expect(`loopback rows for ${LOOPBACK_AUDIT_TOOL}`, count("SELECT COUNT(*) AS n FROM audit WHERE surface = 'loopback' AND tool = ?", LOOPBACK_AUDIT_TOOL), made.loopback);
    expect(
      `loopback rows matching one ${LOAD_TOOLS.loopback} call by request id`,
      count(`SELECT COUNT(*) AS n FROM audit l
        JOIN (SELECT request_id, COUNT(*) AS c FROM audit WHERE surface = 'mcp' AND tool GLOB ? GROUP BY request_id) m ON m.request_id = l.request_id
        WHERE l.surface = 'loopback' AND m.c = 1`, named.loopback),
      made.loopback,
    );
    if (expectOk) expect("loopback rows not \"ok\"", count("SELECT COUNT(*) AS n FROM audit WHERE surface = 'loopback' AND outcome <> 'ok'"), 0);
    expect("rows for anything else", count("SELECT COUNT(*) AS n FROM audit WHERE NOT ((surface = 'mcp' AND (tool GLOB ? OR tool GLOB ? OR tool GLOB ?)) OR (surface = 'loopback' AND tool = ?))",
      named.plugin, named.user, named.loopback, LOOPBACK_AUDIT_TOOL), 0);
  } finally {
    db.close();
  }
  const store = await openStore({ path: database });
  try {
    const chain = await verifyAuditChain(store.iterateAudit());
    ok &&= chain.ok;
    lines.push(`${chain.ok ? "ok  " : "FAIL"} audit hash chain verifies${chain.ok ? "" : `: ${JSON.stringify(chain)}`}`);
  } finally {
    await store.close();
  }
  return { ok, lines };
}
