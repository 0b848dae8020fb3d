/** Temp folders, fixture plugins and a running app on 127.0.0.1:0 for tests. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createApp, type App } from "../../src/app.ts";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { DEFAULT_CONFIG, type ServerConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import type { TokenScopes, UserRecord } from "../../src/store/store.ts";
import { ISOLATE_REUSE } from "./isolate-mode.ts";

export const EXAMPLE_PLUGINS = path.resolve(import.meta.dirname, "../../examples/plugins");

export function tempDir(prefix = "knot-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes `files` (relative path → text) into `<root>/<name>/`. */
export function writePlugin(root: string, name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** A `// /// script` block from TOML lines. */
export function manifest(toml: string): string {
  return ["// /// script", ...toml.trim().split("\n").map((line) => (line.trim() === "" ? "//" : `// ${line.trim()}`)), "// ///", ""].join("\n");
}

export interface TestApp {
  readonly app: App;
  readonly url: string;
  readonly dir: string;
  user(name: string, options?: { admin?: boolean; groups?: string[]; grants?: string[] }): Promise<UserRecord>;
  token(user: UserRecord, scopes?: TokenScopes | null, options?: { expiresAt?: string | null }): Promise<string>;
  /** A user plus an unscoped token in one step. */
  userWithToken(name: string, options?: { admin?: boolean; groups?: string[]; grants?: string[] }): Promise<{ user: UserRecord; token: string }>;
  close(): Promise<void>;
}

/**
 * The sandbox of every app a test starts: one small worker, in the test run's isolate mode (npm test
 * runs the attack, sandbox, tool and event tests in both); the test's own fields win.
 */
export function testSandbox(own?: Partial<ServerConfig["sandbox"]>): ServerConfig["sandbox"] {
  return { workers: 1, runsPerWorker: 4, workerMemoryMb: 512, isolateReuse: ISOLATE_REUSE, ...own };
}

export async function startApp(options: { pluginsDir?: string; config?: Partial<ServerConfig> } = {}): Promise<TestApp> {
  const dir = tempDir();
  const config: ServerConfig = {
    ...DEFAULT_CONFIG, port: 0, host: "127.0.0.1",
    database: path.join(dir, "knot.db"), pluginsDir: options.pluginsDir ?? EXAMPLE_PLUGINS,
    ...options.config,
    sandbox: testSandbox(options.config?.sandbox),
  };
  const app = await createApp(config, { logger: silentLogger });
  const { url } = await app.listen();
  const t: TestApp = {
    app, url, dir,
    async user(name, o = {}) {
      const user = await app.store.createUser({ name, isAdmin: o.admin === true });
      for (const group of o.groups ?? []) await app.store.addMembership(user.id, group);
      for (const permission of o.grants ?? []) await app.store.grant({ subject: { kind: "user", userId: user.id }, permission });
      return user;
    },
    async token(user, scopes = null, o = {}) {
      const secret = mintSecret("kt_");
      await app.store.createToken({ userId: user.id, name: "test", secretHash: hashSecret(secret), scopes, expiresAt: o.expiresAt ?? null });
      return secret;
    },
    async userWithToken(name, o = {}) {
      const user = await t.user(name, o);
      return { user, token: await t.token(user) };
    },
    close: () => app.close(),
  };
  return t;
}

/** fetch against the test app with a bearer token. */
export async function request(url: string, token: string | null, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const headers = new Headers(init.headers);
  if (token) headers.set("authorization", `Bearer ${token}`);
  if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const res = await fetch(url, { ...init, headers });
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json")) body = text === "" ? null : JSON.parse(text);
  return { status: res.status, body, headers: res.headers };
}
