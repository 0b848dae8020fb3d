// Appends audit rows from its own connection, for the multi-connection test in audit.test.ts.
import { parentPort, workerData } from "node:worker_threads";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";

const { path, rows, name } = workerData as { path: string; rows: number; name: string };
const store = await createSqliteStore({ path });
for (let index = 0; index < rows; index += 1) {
  await store.appendAudit({
    at: new Date().toISOString(), userId: name, tokenId: null, client: null, surface: "api", tool: `${name}-${index}`,
    args: { index }, outcome: "ok", durationMs: 1, summary: null, requestId: null,
  });
}
await store.close();
parentPort?.postMessage("done");
