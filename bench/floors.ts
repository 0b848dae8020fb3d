/**
 * `node --no-node-snapshot bench/floors.ts [samples]`: what a sandboxed call pays by design and the
 * bare baseline does not (issue 13's profile of what remains). The bare server answers in the
 * client's own process; a user tool's call also crosses to a sandbox worker and back (one JSON IPC
 * round trip over the pool's kind of channel) and hops to its isolate's thread and back (the
 * evaluation is an isolated-vm task, so user code runs under the CPU and wall limits). Each is
 * measured back to back, and after the pauses a caller leaves when the worker waits for its next
 * call (1 ms, as in the MCP bench's one-client loop; 25 ms): an idle process or thread is woken.
 * The echo child sends the whole job back where a worker answers with a small verdict, so the round
 * trip is a little high; back to back it is noisy (the two processes may or may not share a core).
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { percentile, timed } from "./stats.ts";

const ECHO_CHILD = "--floors-echo-child";
const PAUSES_MS = [0, 1, 25] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** About the size of the MCP bench's echo job: source, params, caller, limits. */
const JOB = {
  t: "run",
  job: {
    runId: "r1", filename: "tool:user_echo", params: { text: "hello" },
    source: 'import { getString, returnString } from "knot:tool";\nexport default function () { returnString(getString("text")); }',
    user: { id: "u1", name: "bench", isAdmin: false, groups: [], permissions: ["knot.mcp"], pluginPermissions: [] },
    limits: { heapMb: 64, cpuMs: 5000, wallMs: 30000, resultBytes: 1048576, logBytes: 65536, loopbackCalls: 100 },
  },
};

async function p50After(samples: number, pauseMs: number, once: () => Promise<unknown> | unknown): Promise<number> {
  const spent: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    if (pauseMs > 0) await sleep(pauseMs);
    await timed(spent, once);
  }
  return percentile(spent, 50) * 1000;
}

async function ipcRoundTrips(samples: number): Promise<number[]> {
  const child = fork(fileURLToPath(import.meta.url), [ECHO_CHILD], { serialization: "json", stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const roundTrip = () => new Promise<void>((resolve) => {
    child.once("message", () => resolve());
    child.send(JOB);
  });
  try {
    for (let i = 0; i < 200; i += 1) await roundTrip();
    const out: number[] = [];
    for (const pause of PAUSES_MS) out.push(await p50After(samples, pause, roundTrip));
    return out;
  } finally {
    child.kill();
  }
}

async function isolateHops(samples: number): Promise<{ task: number[]; sync: number[] }> {
  // Loaded here, not at the top: the echo child (this file forked) has no use for the native addon.
  const { createIsolate } = await import("../sandbox/worker/ivm.ts");
  const isolate = createIsolate({ memoryMb: 32, onCatastrophicError: () => undefined });
  try {
    const context = isolate.createContextSync();
    const script = isolate.compileScriptSync("1 + 1");
    for (let i = 0; i < 200; i += 1) await script.run(context);
    const task: number[] = [];
    const sync: number[] = [];
    for (const pause of PAUSES_MS) {
      task.push(await p50After(samples, pause, () => script.run(context)));
      sync.push(await p50After(samples, pause, () => script.runSync(context)));
    }
    return { task, sync };
  } finally {
    isolate.dispose();
  }
}

export async function measureFloors(samples = 300): Promise<string[]> {
  const ipc = await ipcRoundTrips(samples);
  const { task, sync } = await isolateHops(samples);
  const row = (values: number[]) => values.map((us) => `${us.toFixed(0)} µs`).join(" / ");
  const pauses = PAUSES_MS.map((ms) => (ms === 0 ? "back to back" : `${ms} ms idle`)).join(" / ");
  return [
    `floors of the sandboxed path that the in-process bare server does not pay (p50; ${pauses}):`,
    `  JSON IPC round trip to a worker process (a ${JSON.stringify(JOB).length}-byte job): ${row(ipc)}`,
    `  isolated-vm task on the isolate's thread (the run's evaluation): ${row(task)}; the same script run synchronously: ${row(sync)}`,
  ];
}

if (process.argv[2] === ECHO_CHILD) {
  process.on("message", (message) => process.send?.(message));
  process.on("disconnect", () => process.exit(0));
} else if (import.meta.main) {
  for (const line of await measureFloors(Number(process.argv[2] ?? 300))) console.log(line);
}
