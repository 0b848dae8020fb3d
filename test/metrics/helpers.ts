/** An app with a `trace` plugin and a log captured in memory, plus a small Prometheus text reader. */
import path from "node:path";
import { createApp, type App } from "../../src/app.ts";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { DEFAULT_CONFIG, type ServerConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { manifest, tempDir, testSandbox, writePlugin } from "../helpers/fixtures.ts";

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface TracedApp {
  readonly app: App;
  readonly url: string;
  readonly lines: LogLine[];
  /** A user with these grants and an unscoped API token. */
  userWithToken(name: string, options?: { admin?: boolean; grants?: string[] }): Promise<{ id: string; token: string }>;
}

/** `trace/ok`, `trace/boom` (throws), `trace/slow` (waits params.ms, on an unref'd timer), `trace/gated` (needs plugin.trace.secret). */
export function writeTracePlugin(root: string): void {
  writePlugin(root, "trace", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["secret"]

      [[tool.knot.handlers]]
      handler = "ok"

      [[tool.knot.handlers]]
      handler = "boom"

      [[tool.knot.handlers]]
      handler = "slow"

      [[tool.knot.handlers]]
      handler = "gated"
      permission = "secret"

      [[tool.knot.mcp_tools]]
      name = "trace_ok"
      description = "Answers ok."
      handler = "ok"
    `) + `
export function ok() { return { ok: true }; }
export function boom() { throw new Error("boom: internal detail"); }
export async function slow(request) {
  // unref: a test may stop the server meanwhile and must not wait for this timer to exit.
  await new Promise((r) => setTimeout(r, Number(request.params.ms ?? 100)).unref());
  return { slept: Number(request.params.ms ?? 100) };
}
export function gated() { return { gated: true }; }
`,
  });
}

export async function startTracedApp(config: Partial<ServerConfig> = {}): Promise<TracedApp> {
  const dir = tempDir("knot-metrics-");
  const plugins = path.join(dir, "plugins");
  writeTracePlugin(plugins);
  const lines: LogLine[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line) as LogLine) });
  const app = await createApp({
    ...DEFAULT_CONFIG, port: 0, host: "127.0.0.1", database: path.join(dir, "knot.db"), pluginsDir: plugins,
    ...config, sandbox: testSandbox(config.sandbox),
  }, { logger });
  const { url } = await app.listen();
  return {
    app, url, lines,
    async userWithToken(name, options = {}) {
      const user = await app.store.createUser({ name, isAdmin: options.admin === true });
      for (const permission of options.grants ?? []) await app.store.grant({ subject: { kind: "user", userId: user.id }, permission });
      const token = mintSecret("kt_");
      await app.store.createToken({ userId: user.id, name: "test", secretHash: hashSecret(token), scopes: null, expiresAt: null });
      return { id: user.id, token };
    },
  };
}

/** The value of the sample `name` whose labels include `labels` (0 when absent). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) {
      total += Number(match[3]);
      found = true;
    }
  }
  return found ? total : 0;
}
