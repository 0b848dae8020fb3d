// A published library: plugin:demo/calc for other plugins (pool only, never user tools).
import { user } from "knot:identity";
import { deny } from "knot:plugin";

export function add(a, b) {
  return a + b;
}

export function scale(value, factor) {
  return value * factor;
}

export class Counter {
  value = 0;
  increment() {
    this.value += 1;
    return this.value;
  }
}

/**
 * Composing plugins import this ungated, so it checks the caller itself — the discipline the
 * trust domain relies on for shared compute.
 */
export function gatedReport() {
  if (!user().hasPermission("plugin.demo.view_dashboard")) deny("plugin.demo.view_dashboard not granted");
  return { visitors: 42, by: user().name };
}
