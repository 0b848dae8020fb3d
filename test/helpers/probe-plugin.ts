/** A fixture plugin whose handlers leave traces, to prove which code ran and as whom. */
import { manifest, writePlugin } from "./fixtures.ts";

export function writeProbePlugin(root: string): void {
  writePlugin(root, "probe", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["secret", "open"]
      config = ["marker"]

      [[tool.knot.handlers]]
      handler = "gated"
      permission = "secret"

      [[tool.knot.handlers]]
      handler = "echo"

      [[tool.knot.handlers]]
      handler = "boom"

      [[tool.knot.handlers]]
      handler = "slow"

      [[tool.knot.handlers]]
      handler = "whoami"

      [[tool.knot.handlers]]
      handler = "nested"

      [[tool.knot.handlers]]
      handler = "text"
    `) + `
import fs from "node:fs";
import { user } from "knot:identity";
import { call } from "knot:plugin";

export function gated(request) {
  fs.appendFileSync(request.config.marker, "gated ran\\n");
  return { ran: true, by: request.user.name };
}
export function echo(request) {
  return { method: request.method, path: request.path, params: request.params, config: request.config, user: request.user };
}
export function boom() {
  throw new Error("secret detail /etc/passwd");
}
export async function slow(request) {
  await new Promise((r) => setTimeout(r, Number(request.params.ms ?? 50)));
  return { by: user().name, userField: request.user.name };
}
export async function whoami(request) {
  await new Promise((r) => setTimeout(r, Number(request.params.ms ?? 0)));
  return { identity: user().name, data: request.user.name, admin: user().isAdmin, canSecret: user().hasPermission("plugin.probe.secret") };
}
export async function nested(request) {
  return call(request.params.plugin ?? "probe", request.params.fn ?? "gated", request.params.inner ?? {}, { method: request.params.method });
}
export function text() {
  return "plain words";
}
export function notDeclared() {
  return "must never be reachable";
}
`,
  });
}
