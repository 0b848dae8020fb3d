/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance server`) against the
 * real server with the `conformance` example plugin. The suite cannot send an Authorization header,
 * so a small loopback proxy adds the bearer token; Host and Origin pass through unchanged, so the
 * DNS-rebinding scenario tests the server's own check (the proxy's host is in mcp.allowed_hosts).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";

export const CONFORMANCE_PLUGIN = path.resolve(import.meta.dirname, "../../examples/conformance-plugins/conformance");
const SUITE = path.resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");

export interface ScenarioResult {
  readonly scenario: string;
  readonly passed: number;
  readonly failed: number;
  readonly warnings: number;
  readonly failures: readonly string[];
}

/** A proxy on 127.0.0.1 that forwards every request to 127.0.0.1:`target`, adding the bearer token. */
export async function startTokenProxy(): Promise<{ port: number; target(port: number, token: string): void; close(): Promise<void> }> {
  let targetPort = 0;
  let bearer = "";
  const server = http.createServer((req, res) => {
    const upstream = http.request({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${bearer}` } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    target: (port, token) => {
      targetPort = port;
      bearer = token;
    },
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** Starts the app with only the conformance plugin, behind the token proxy (its host is allowed). */
export async function startConformanceTarget(options: { stateless?: boolean } = {}): Promise<{ app: TestApp; url: string; close(): Promise<void> }> {
  const plugins = tempDir("knot-conformance-plugins-");
  fs.cpSync(CONFORMANCE_PLUGIN, path.join(plugins, "conformance"), { recursive: true });
  const proxy = await startTokenProxy();
  const app = await startApp({ pluginsDir: plugins, config: { mcp: { stateless: options.stateless === true, allowedHosts: [`localhost:${proxy.port}`] } } });
  const { token } = await app.userWithToken("conformance", { grants: ["knot.mcp"] });
  proxy.target(Number(new URL(app.url).port), token);
  return {
    app, url: `http://localhost:${proxy.port}/mcp`,
    close: async () => {
      await proxy.close();
      await app.close();
    },
  };
}

/** Runs the suite (or one scenario) and parses its per-scenario summary lines. */
export function runSuite(url: string, options: { scenario?: string; outputDir?: string; requirements?: string } = {}): Promise<{ code: number | null; results: ScenarioResult[]; output: string }> {
  const args = [
    SUITE, "server", "--url", url, ...(options.scenario ? ["--scenario", options.scenario] : []),
    // One scenario runs at a revision's wire with --spec-version; a whole revision with --requirements.
    ...(options.requirements ? [options.scenario ? "--spec-version" : "--requirements", options.requirements] : []), "-o", options.outputDir ?? tempDir("knot-conformance-out-"),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("exit", (code) => resolve({ code, results: parseSummary(output.replace(/\x1b\[[0-9;]*m/g, ""), options.scenario), output }));
  });
}

function parseSummary(output: string, scenario?: string): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  // One scenario prints "Passed: 1/1, 0 failed, 0 warnings" and its FAILURE lines.
  const single = scenario ? /Passed: (\d+)\/\d+, (\d+) failed, (\d+) warnings?/.exec(output) : null;
  if (scenario && single) {
    const failures = output.split("\n").filter((line) => / FAILURE /.test(line)).map((line) => line.replace(/^.*FAILURE\s*/, ""));
    return [{ scenario, passed: Number(single[1]), failed: Number(single[2]), warnings: Number(single[3]), failures }];
  }
  let current: { scenario: string; passed: number; failed: number; warnings: number; failures: string[] } | null = null;
  for (const line of output.split("\n")) {
    const head = /^[✓✗!]?\s*([a-z0-9-]+(?:\/[a-z0-9-]+)?): (\d+) passed, (\d+) failed(?:, (\d+) warnings?)?/.exec(line.trim());
    if (head) {
      current = { scenario: head[1]!, passed: Number(head[2]), failed: Number(head[3]), warnings: Number(head[4] ?? 0), failures: [] };
      results.push(current);
      continue;
    }
    const failure = /^\s+- (.+)$/.exec(line);
    if (failure && current) current.failures.push(failure[1]!);
  }
  return results;
}
