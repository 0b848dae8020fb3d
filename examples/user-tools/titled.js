// Uses a second exported module by its stem: plugin:demo/format (members never flatten into plugin:demo).
import { titled } from "plugin:demo/format";

export default function main(request) {
  const words = String(request.params.text ?? "hello knot tools").split(/\s+/);
  return words.map(titled).join(" ");
}
