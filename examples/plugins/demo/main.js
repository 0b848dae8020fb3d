// /// script
// requires-runtime = ">=0.1"
//
// [tool.knot]
// version = "1.0.0"
// description = "Demonstrates handlers, an MCP tool, a self-gating library and client modules."
// permissions = ["view_dashboard", "admin_dashboard"]
// export = ["client.js", "format.js"]
//
// [[tool.knot.handlers]]
// handler = "echo_word"
// permission = "view_dashboard"
//
// [[tool.knot.handlers]]
// handler = "lib_exports"
//
// [[tool.knot.pages]]                # shown in the web UI's navigation to users who pass the gate
// path = "/status"
// handler = "status_page"
// label = "Demo status"
// permission = "view_dashboard"
//
// [[tool.knot.mcp_tools]]
// name = "echo_word"
// description = "Echo a word back, with who asked."
// handler = "echo_word"
// read_only = true
//
// [[tool.knot.mcp_tools.parameters]]
// name = "word"
// type = "string"
// description = "The word to echo."
// required = true
// ///
import { user } from "knot:identity";
import { add, scale, Counter, gatedReport } from "plugin:demo/calc";

/** Serves the page route, the loopback and the MCP tool alike: it reads request.params. */
export function echo_word(request) {
  const word = String(request.params.word ?? "");
  return { word, length: word.length, by: user().name, method: request.method };
}

/** Reports what the composition import of plugin:demo/calc gives, and the self-gated export. */
export function lib_exports() {
  const counter = new Counter();
  counter.increment();
  counter.increment();
  let gated;
  try {
    gated = { ok: true, value: gatedReport() };
  } catch (error) {
    gated = { ok: false, error: error.message };
  }
  return { add: add(2, 3), scale: scale(4, 2.5), counter: counter.value, gatedReport: gated };
}

/**
 * A plugin page: returns a document of blocks (markdown, kv, table, stat). The web UI renders
 * markdown server-side and sanitised, and everything else as plain text.
 */
export function status_page(request) {
  const me = user();
  const note = String(request.params.note ?? "Everything is **fine**.");
  return {
    title: "Demo status",
    blocks: [
      { type: "markdown", text: `## Hello, ${me.name}\n\n${note}\n\nThis page is served by the \`status_page\` handler of the \`demo\` plugin.` },
      { type: "stat", label: "Sum from plugin:demo/calc", value: add(2, 3), hint: "add(2, 3)" },
      { type: "kv", items: [{ key: "Signed in as", value: me.name }, { key: "Admin", value: me.isAdmin ? "yes" : "no" }, { key: "Groups", value: me.groups.join(", ") || "none" }] },
      { type: "table", columns: ["Handler", "Gate"], rows: [["echo_word", "plugin.demo.view_dashboard"], ["lib_exports", "none"]] },
    ],
  };
}
