// Appends audit rows from its own connection, for the multi-connection test in audit.test.ts.
import { parentPort, workerData } from "node:worker_threads";
import { openStore } from "../../src/store/index.ts";

const { location, rows, name } = workerData as { location: string; rows: number; name: string };
const store = await openStore({ path: location });
for (let index = 0; index < rows; index += 1) {
  await store.appendAudit({
    at: new Date().toISOString(), userId: name, tokenId: null, client: null, surface: "api", tool: `${name}-${index}`,
    args: { index }, outcome: "ok", durationMs: 1, summary: null, requestId: null,
  });
}
await store.close();
parentPort?.postMessage("done");
