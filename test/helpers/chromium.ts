/**
 * The browser the UI tests drive: the Chromium that the npm package `@sparticuz/chromium` ships
 * (brotli-compressed inside the package, so `npm ci` brings it and nothing is downloaded at run
 * time), unpacked once per machine into the temp folder. We use it everywhere, not only where
 * Debian's `chromium` is missing, so every machine runs the tests against the same browser build.
 * `KNOT_CHROMIUM=/path/to/chrome` points the tests at another binary instead.
 *
 * Why not the package's `executablePath()` as it is: it unpacks straight into `$TMPDIR/chromium`
 * with no lock, so two test processes starting at once (or one killed midway) leave a half-written
 * binary that every later run trusts. Here each unpack goes to a private folder that is renamed
 * into place only when complete.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import Chromium, { inflate } from "@sparticuz/chromium";

/**
 * Flags of the package's list we drop: three switch off the web security our UI tests check, and
 * `--single-process` (for Lambda's seccomp) breaks a second browser context in the same browser.
 */
const DROPPED_FLAGS = new Set(["--disable-web-security", "--allow-running-insecure-content", "--disable-site-isolation-trials", "--single-process"]);

/** Our own: no traffic to Google's hosts (this machine has no network), no first-run work. */
const QUIET_FLAGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-gpu"];

export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const HINT = "run `npm ci` in the project folder (it installs the devDependency @sparticuz/chromium), or set KNOT_CHROMIUM to a Chromium binary";

function packageVersion(): string {
  const require = createRequire(import.meta.url);
  const manifest = path.join(path.dirname(require.resolve("@sparticuz/chromium")), "..", "package.json");
  return JSON.parse(fs.readFileSync(manifest, "utf8")).version as string;
}

/** Unpacks chromium, its fonts and SwiftShader into `dir` (the package's own inflate, pointed at `dir`). */
async function unpackInto(dir: string): Promise<void> {
  const bin = path.join(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "bin");
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir; // inflate() reads os.tmpdir() synchronously when called
  let pending: Promise<string>[];
  try {
    pending = ["chromium.br", "fonts.tar.br", "swiftshader.tar.br"].map((file) => inflate(path.join(bin, file)));
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  await Promise.all(pending);
}

/** The package's fonts.conf names Lambda's folders (/tmp/fonts, /var/task); ours names where they are. */
function writeFontConfig(home: string, building: string): void {
  const config = `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${path.join(home, "fonts")}</dir>
  <cachedir>${path.join(home, "fonts-cache")}</cachedir>
</fontconfig>
`;
  fs.writeFileSync(path.join(building, "fonts.conf"), config);
}

let unpacked: Promise<string> | undefined;

/** The folder holding the unpacked browser (made on first use, reused by later runs). */
function unpackedHome(): Promise<string> {
  unpacked ??= (async () => {
    const home = path.join(os.tmpdir(), `knot-chromium-${packageVersion()}-${process.getuid?.() ?? 0}`);
    if (fs.existsSync(path.join(home, ".complete"))) return home;
    const building = fs.mkdtempSync(`${home}.building-`);
    try {
      await unpackInto(building);
      writeFontConfig(home, building);
      fs.writeFileSync(path.join(building, ".complete"), "");
      try {
        fs.renameSync(building, home);
      } catch {
        if (!fs.existsSync(path.join(home, ".complete"))) throw new Error(`could not move the unpacked Chromium to ${home}`);
        // another test process finished first: use theirs
      }
    } finally {
      fs.rmSync(building, { recursive: true, force: true });
    }
    return home;
  })();
  return unpacked;
}

/** How to launch the test browser; fails with what is missing and how to get it, never skips. */
export async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const override = process.env.KNOT_CHROMIUM;
  if (override !== undefined) {
    if (!fs.existsSync(override)) throw new Error(`KNOT_CHROMIUM=${override} does not exist: ${HINT}.`);
    return { executablePath: override, args: ["--headless", "--no-sandbox", ...QUIET_FLAGS], env: {} };
  }
  let home: string;
  try {
    home = await unpackedHome();
  } catch (error) {
    throw new Error(`The test browser could not be prepared (${(error as Error).message}): ${HINT}.`);
  }
  const args = Chromium.args.filter((flag) => !DROPPED_FLAGS.has(flag) && !flag.startsWith("--headless"));
  return {
    executablePath: path.join(home, "chromium"),
    args: [...args, ...QUIET_FLAGS],
    env: { FONTCONFIG_FILE: path.join(home, "fonts.conf"), HOME: home },
  };
}
