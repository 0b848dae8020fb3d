import { openStore } from "../../store/index.ts";
import { verifyStoredAudit } from "../../store/audit-hash.ts";
import { COMMON_OPTIONS, parse, requireExistingDatabase, resolveConfig, usageError } from "../context.ts";

/** `knot-tools audit verify [--db FILE]`: checks the audit log's hash chain; exit 1 names the first bad row. */
export async function auditCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMON_OPTIONS);
  if (positionals[0] !== "verify" || positionals.length !== 1) throw usageError("audit verify [--db FILE]");
  const { database } = resolveConfig(values);
  requireExistingDatabase(database);
  const store = await openStore({ path: database });
  try {
    const verdict = await verifyStoredAudit(store);
    if (verdict.ok) {
      process.stdout.write(`audit log intact: ${verdict.rows} rows\n`);
      return 0;
    }
    process.stderr.write(`audit log broken at row ${verdict.seq}: ${verdict.reason}\n`);
    return 1;
  } finally {
    await store.close();
  }
}
