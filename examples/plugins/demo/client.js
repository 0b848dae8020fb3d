// Client SDK for user tools: plugin:demo (and plugin:demo/client). Every method is a gated
// loopback call the user could write by hand; the declaration adds ergonomics, never authority.
import { call } from "knot:plugin";
import { titled } from "plugin:demo/format";

const PLUGIN = "demo";

export class Widgets {
  async echo(word) {
    return call(PLUGIN, "echo_word", { word });
  }

  async echoTitled(word) {
    return call(PLUGIN, "echo_word", { word: titled(word) }, { method: "POST" });
  }

  async libExports() {
    return call(PLUGIN, "lib_exports");
  }
}
