/**
 * The load benchmark's server: a child process (forked by bench/load.ts) running the real app —
 * createApp on 127.0.0.1:0 with a temp SQLite file, the example plugins, quotas raised out of the
 * way (this measures the call path, not back-pressure) and two sandbox workers. It creates the
 * users, tokens and user tools, reports them over IPC, and closes the app when told to stop.
 * Kept apart from the clients so that its memory figures are its own and it has its own thread.
 */
import path from "node:path";
import { createApp } from "../../src/app.ts";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { DEFAULT_CONFIG, type ServerConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { LOAD_TOOLS, type ServerReady, type ServerRequest, type ServerSettings } from "./protocol.ts";

const EXAMPLE_PLUGINS = path.resolve(import.meta.dirname, "../../examples/plugins");

const ECHO_TOOL = `import { getString, returnObject } from "knot:tool";
import { user } from "knot:identity";
export default function () { returnObject({ echo: getString("text"), by: user().name }); }`;

// Widgets.echo is a gated loopback call to demo's echo_word handler, made as the caller.
const WIDGETS_TOOL = `import { Widgets } from "plugin:demo";
import { getString } from "knot:tool";
export default async function () { return await new Widgets().echo(getString("word")); }`;

const settings = JSON.parse(process.argv[2] ?? "{}") as ServerSettings;

const config: ServerConfig = {
  ...DEFAULT_CONFIG,
  host: "127.0.0.1",
  port: 0,
  database: settings.database,
  pluginsDir: EXAMPLE_PLUGINS,
  sandbox: { workers: 2, runsPerWorker: 4, workerMemoryMb: 512 },
  quotas: {
    ...DEFAULT_CONFIG.quotas, userConcurrentRuns: 1_000, userRunsPerMinute: 1e9, tokenConcurrentRuns: 1_000, tokenRunsPerMinute: 1e9,
    maxConcurrentRuns: 1_000, maxQueuedRuns: 100_000,
  },
};

const app = await createApp(config, { logger: silentLogger });
const { url } = await app.listen();
const users: ServerReady["users"][number][] = [];
for (let i = 0; i < settings.users; i += 1) {
  const user = await app.store.createUser({ name: `load-${i}`, isAdmin: false });
  for (const permission of ["knot.mcp", "plugin.demo.view_dashboard"]) {
    await app.store.grant({ subject: { kind: "user", userId: user.id }, permission });
  }
  const token = mintSecret("kt_");
  await app.store.createToken({ userId: user.id, name: "load", secretHash: hashSecret(token), scopes: null, expiresAt: null });
  await app.store.createUserTool(user.id, parseUserToolInput({ name: LOAD_TOOLS.user, code: ECHO_TOOL, parameters: [{ name: "text", type: "string", required: true }] }));
  await app.store.createUserTool(user.id, parseUserToolInput({ name: LOAD_TOOLS.loopback, code: WIDGETS_TOOL, parameters: [{ name: "word", type: "string", required: true }] }));
  users.push({ name: user.name, token });
}

// Wait for the sandbox workers, so the "before" memory figure includes them.
const until = Date.now() + 30_000;
while (app.sandbox.stats().workers < config.sandbox.workers && Date.now() < until) await new Promise((r) => setTimeout(r, 50));

process.on("message", (raw: unknown) => {
  const message = raw as ServerRequest;
  if (message.t === "stats") {
    // Collected first (the child runs with --expose-gc) so the heap figure is what is retained.
    (globalThis as { gc?: () => void }).gc?.();
    const memory = process.memoryUsage();
    const mb = (bytes: number) => bytes / 2 ** 20;
    process.send!({
      t: "stats", heapUsedMb: mb(memory.heapUsed), heapTotalMb: mb(memory.heapTotal), externalMb: mb(memory.external),
      sandbox: app.sandbox.stats(), mcpSessions: app.mcp.sessions.size,
    });
  } else if (message.t === "stop") {
    void app.close().then(() => process.send!({ t: "stopped" }, () => process.exit(0)));
  }
});
process.on("disconnect", () => void app.close().finally(() => process.exit(0)));
const ready: ServerReady = { t: "ready", url, users };
process.send!(ready);
