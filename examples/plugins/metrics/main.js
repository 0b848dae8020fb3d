// /// script
// requires-runtime = ">=0.1"
//
// [tool.knot]
// version = "1.0.0"
// description = "Fleet metrics: an export handler and an MCP tool for the platform group."
// permissions = ["export"]
// export = ["client.js"]
//
// [[tool.knot.handlers]]
// handler = "export_all"
// permission = "export"
//
// [[tool.knot.mcp_tools]]
// name = "export_metrics"
// description = "Export fleet metrics as JSON for a time range."
// handler = "export_metrics"
// permission = "export"
// read_only = true
//
// [[tool.knot.mcp_tools.parameters]]
// name = "hours"
// type = "int"
// description = "Hours to export."
// default = 24
//
// [[tool.knot.mcp_tools.parameters]]
// name = "scope"
// type = "string"
// description = "What to export."
// required = true
// ///
import { user } from "knot:identity";
import { getInt, getString, returnError, returnObject } from "knot:tool";

const HOURLY = [12, 15, 11, 19, 23, 17];

function rows(hours) {
  return Array.from({ length: Math.min(Math.max(hours, 0), 168) }, (_, i) => ({ hour: i, requests: HOURLY[i % HOURLY.length] }));
}

/** A declared handler: reachable by URL, call() and the loopback, gated by `export`. */
export function export_all(request) {
  const range = String(request.params.range ?? "1h");
  const hours = Number.parseInt(range, 10) * (range.endsWith("d") ? 24 : 1) || 1;
  const data = rows(hours);
  return { range, rows: data, summary: `${data.length} rows for ${range}` };
}

/** The MCP tool: the gate is `export`; the platform-group rule is the plugin's own check. */
export function export_metrics() {
  const caller = user();
  if (!caller.isAdmin && !caller.inGroup("platform")) returnError("platform group only");
  const hours = getInt("hours", 24);
  const scope = getString("scope");
  const data = rows(hours);
  returnObject({ scope, hours, exported: data, summary: `exported ${data.length} rows of ${scope}` });
}
