import { adminOf } from "../../admin/admin.ts";
import { createApp } from "../../app.ts";
import { isPostgresUrl, redactUrl } from "../../store/postgres/url.ts";
import { COMMON_OPTIONS, parse, resolveConfig } from "../context.ts";

export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parse(args, { ...COMMON_OPTIONS, host: { type: "string" }, port: { type: "string" } });
  const config = resolveConfig(values);
  const app = await createApp(config);
  let url: string;
  try {
    ({ url } = await app.listen());
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  // The first start on an empty database creates the user `admin` and prints its token once:
  // only once listening, or a start that failed (a port in use) would keep a token nobody saw.
  // Another instance starting at once may make it instead (then this one prints none).
  let token: string | null;
  try {
    token = await adminOf(app).tokens.bootstrap();
  } catch (error) {
    await app.close().catch(() => {}); // listening already: close as a shutdown would, not by exiting under it
    throw error;
  }
  const loaded = [...app.pool.registry.loaded.keys()];
  process.stdout.write(`knot-tools listening on ${url}\n  plugins: ${config.pluginsDir} (${loaded.join(", ") || "none"}${app.pool.registry.failed.length ? `; ${app.pool.registry.failed.length} failed` : ""})\n  database: ${isPostgresUrl(config.database) ? redactUrl(config.database) : config.database}\n`);
  if (token) process.stdout.write(`created user "admin"; its API token (shown once):\n${token}\n`);
  // The first SIGTERM/SIGINT drains (running calls finish, up to server.shutdown_grace_ms); a second one stops at once.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stdout.write(`${signal} again: stopping now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`shutting down (${signal}): finishing running calls for up to ${config.shutdownGraceMs} ms\n`);
    app.close().then(() => process.exit(0), (error: unknown) => {
      app.logger.error("shutdown failed", { error });
      process.exit(1);
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return -1;
}
