// A user tool over the demo plugin's client SDK: `plugin:demo` is its first exported module
// (client.js). Widgets.echo is a gated loopback call to demo's echo_word handler, made as the
// requesting user — it needs plugin.demo.view_dashboard like a browser fetch would.
import { Widgets } from "plugin:demo";
import { getString } from "knot:tool";

export default async function main() {
  const word = getString("word", "hi");
  return await new Widgets().echo(word);
}
