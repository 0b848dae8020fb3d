#!/usr/bin/env node
// Starts the CLI on the project's pinned Node 24 with --no-node-snapshot (isolated-vm needs it),
// whichever `node` launched this file. --max-semi-space-size=8 (as in `npm start`): a young
// generation of at most 8 MB per semi-space keeps the server's RSS under load near half of what
// V8's default lets it hold, at the same CPU per call (README, Benchmarks).
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const ready = Number(process.versions.node.split(".")[0]) >= 24 && process.execArgv.includes("--no-node-snapshot");

if (ready) {
  const { runCli } = await import(cli);
  await runCli(process.argv.slice(2));
} else {
  let node = process.execPath;
  if (Number(process.versions.node.split(".")[0]) < 24) {
    try {
      node = createRequire(import.meta.url).resolve("node/bin/node");
    } catch {
      console.error("knot-tools needs Node 24: run `npm ci` in the project to install the pinned runtime");
      process.exit(1);
    }
  }
  const child = spawn(node, ["--no-node-snapshot", "--disable-warning=ExperimentalWarning", "--max-semi-space-size=8", cli, ...process.argv.slice(2)], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
