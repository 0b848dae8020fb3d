/**
 * Two plugins for interactive page tests: `fleet` has a page with a form (text, number, a static
 * select, a select filled by `pools_data`, a checkbox) and a button, and action handlers that
 * answer each envelope shape, including hostile ones; `other` has a handler a fleet page must
 * never reach.
 */
import { manifest, writePlugin } from "./fixtures.ts";

export const FLEET_MAIN = manifest(`
  [tool.knot]
  version = "1.0.0"
  permissions = ["view", "manage", "admin_only"]
  [[tool.knot.handlers]]
  handler = "add_host"
  permission = "manage"
  write = true
  [[tool.knot.handlers]]
  handler = "pools_data"
  [[tool.knot.handlers]]
  handler = "restart"
  permission = "admin_only"
  write = true
  [[tool.knot.handlers]]
  handler = "hostile"
  [[tool.knot.handlers]]
  handler = "go_away"
  [[tool.knot.handlers]]
  handler = "suggest_host"
  [[tool.knot.field_handlers]]
  label = "Suggest a name"
  handler = "suggest_host"
  permission = "view"
  [[tool.knot.mcp_tools]]
  name = "add_host_tool"
  description = "Add a host."
  handler = "add_host"
  permission = "manage"
  write = true
  [[tool.knot.mcp_tools.parameters]]
  name = "secret_note"
  secret = true
  [[tool.knot.mcp_tools]]
  name = "hosts_page_tool"
  description = "The hosts page as a tool (its filter is personal)."
  handler = "hosts_page"
  permission = "view"
  [[tool.knot.mcp_tools.parameters]]
  name = "owner_email"
  personal = true
  [[tool.knot.pages]]
  path = "/hosts"
  handler = "hosts_page"
  label = "Hosts"
  permission = "view"
  [[tool.knot.pages]]
  path = "/wiring"
  handler = "wiring_page"
  label = "Wiring"
  permission = "view"
`) + `
export function wiring_page() {
  return { blocks: [{ type: "form", action: "add_host", fields: [{ name: "p", type: "select", data: "add_host" }] }] };
}
const hosts = [];
export function hosts_page() {
  return { title: "Hosts", blocks: [
    { type: "table", columns: ["Host", "Cores", "Region", "Pool", "Monitored"], rows: hosts.map((h) => [h.host, h.cores, h.region, h.pool, h.monitored]) },
    { type: "form", action: "add_host", submit: "Add host", fields: [
      { name: "host", label: "Host name", type: "text", required: true },
      { name: "cores", label: "Cores", type: "number", value: 4 },
      { name: "region", label: "Region", type: "select", options: ["eu", { value: "us", label: "United States" }], value: "us" },
      { name: "pool", label: "Pool", type: "select", data: "pools_data" },
      { name: "monitored", label: "Monitored", type: "checkbox", value: true },
    ] },
    { type: "button", label: "Restart all", action: "restart", params: { scope: "all" } },
  ] };
}
export function pools_data() { return ["blue", { value: "green", label: "Green pool" }]; }
export function add_host(request) {
  const p = request.params;
  hosts.push({ host: p.host, cores: Number(p.cores), region: p.region, pool: p.pool, monitored: p.monitored === "true" });
  return { toast: "Added " + p.host, blocks: hosts_page().blocks };
}
export function restart() { return "restarted"; }
export function hostile(request) {
  return {
    toast: "<img src=x onerror=\\"globalThis.pwned=1\\">" + (request.params.note ?? ""),
    blocks: [{ type: "form", action: "add_host", submit: "<b>go</b>", fields: [{ name: "x", label: "<script>globalThis.pwned=2</script>" }] }],
    redirect: request.params.to ?? undefined,
  };
}
export function go_away(request) { return { redirect: request.params.to }; }
export function suggest_host(request) { return { value: (request.params.value || "host") + "-42<b>" }; }
`;

export const OTHER_MAIN = manifest(`
  [tool.knot]
  version = "1.0.0"
  [[tool.knot.handlers]]
  handler = "steal"
`) + `export function steal() { return { toast: "other plugin ran" }; }\n`;

export function writeFormPlugins(root: string): void {
  writePlugin(root, "fleet", { "main.js": FLEET_MAIN });
  writePlugin(root, "other", { "main.js": OTHER_MAIN });
}
