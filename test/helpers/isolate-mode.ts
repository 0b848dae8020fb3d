/**
 * The isolate mode the tests run the sandbox in: `KNOT_SANDBOX_ISOLATE_REUSE=never` gives one
 * isolate per run, default "user" (a warm isolate per user, a fresh context per run). npm test runs
 * every attack test (and the sandbox, tool and event tests) a second time with "never" (issue 13:
 * every limit and attack holds in both modes), so the pools tests make (test/sandbox/harness.ts)
 * and the apps they start (fixtures.ts) both take it.
 */
export const ISOLATE_REUSE: "user" | "never" = process.env.KNOT_SANDBOX_ISOLATE_REUSE === "never" ? "never" : "user";
