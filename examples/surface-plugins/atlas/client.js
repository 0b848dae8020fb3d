// Client SDK for user tools: plugin:atlas. State lives in the plugin, not here: open() asks a
// handler for an opaque handle and every later call passes it back (the opaque-handle pattern).
import { call } from "knot:plugin";

export class Trip {
  static async open() {
    const { handle } = await call("atlas", "open_trip", {}, { method: "POST" });
    return new Trip(handle);
  }

  constructor(handle) {
    this.handle = handle;
  }

  async add(stop) {
    const { stops } = await call("atlas", "trip_add", { handle: this.handle, stop }, { method: "POST" });
    return stops;
  }
}
