/**
 * A fixture plugin whose handlers misbehave in every way a trusted-but-buggy plugin can without
 * spinning the main thread: throwing (errors and non-errors, at once or later), hanging, failing
 * after its deadline, answering values that are not JSON, plus `slow` (sleeps `ms`) and `ok`.
 * Each function is both a declared handler (`/plugins/faulty/<fn>`) and an MCP tool `f_<fn>`.
 */
import { manifest, writePlugin } from "../helpers/fixtures.ts";

export const FAULTY_FUNCTIONS = [
  "ok", "slow", "throws", "throws_null", "rejects_later", "hangs", "fails_after_deadline",
  "bigint", "cycle", "bad_tojson", "return_object_bigint", "returns_function",
] as const;

const SOURCE = `
import { returnObject } from "knot:tool";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export function ok(request) { return { fine: true, by: request.user.name }; }
export async function slow(request) { await sleep(Number(request.params.ms ?? 50)); return { slept: Number(request.params.ms ?? 50) }; }
export function throws() { throw new Error("secret detail /etc/passwd at db.internal:5432"); }
export function throws_null() { throw null; }
export async function rejects_later() { await sleep(10); throw "a string, not an Error: /etc/shadow"; }
export function hangs() { return new Promise(() => {}); }
export async function fails_after_deadline(request) { await sleep(Number(request.params.ms ?? 600)); throw new Error("too late to matter"); }
export function bigint() { return { total: 10n ** 20n }; }
export function cycle() { const node = { name: "loop" }; node.self = node; return node; }
export function bad_tojson() { return { toJSON() { throw new Error("cannot encode /var/secret"); } }; }
export function return_object_bigint() { returnObject({ n: 1n }); }
export function returns_function() { return () => "code, not data"; }
`;

/** Writes the plugin `faulty` into `root`. */
export function writeFaultyPlugin(root: string): void {
  const blocks = FAULTY_FUNCTIONS.map((fn) => `
    [[tool.knot.handlers]]
    handler = "${fn}"

    [[tool.knot.mcp_tools]]
    name = "f_${fn}"
    description = "Fault fixture ${fn}."
    handler = "${fn}"
  `).join("\n");
  writePlugin(root, "faulty", { "main.js": manifest(`[tool.knot]\nversion = "1.0.0"\n${blocks}`) + SOURCE });
}
