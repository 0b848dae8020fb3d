/**
 * Why: the entry of the ONE guest bundle (issue 13). The worker gets every guest module as a single
 * script (built by sandbox/host/guest-bundle.ts), compiles it once per isolate (with V8's code
 * cache) and runs it in each fresh context: one evaluation instead of fourteen module graphs. The
 * script leaves what the worker needs on one global; the worker reads it into the knot:* modules
 * and deletes it before any user code exists.
 */
import "./prelude.ts"; // first: it locks the realm down before anything else of ours runs
import * as tool from "./tool.ts";
import * as identity from "./identity.ts";
import * as plugin from "./plugin.ts";
import * as runTool from "./run-tool.ts";
import { GLOBAL_NAMES } from "./bindings.ts";
import { I } from "./intrinsics.ts";
import { begin, deliver, takeFinished } from "./runtime.ts";

I.ObjectDefineProperty(globalThis, GLOBAL_NAMES.handoff, {
  value: I.ObjectFreeze({
    /** Module specifier → the module's exports (read once into a module by the worker). */
    modules: I.ObjectFreeze({ "knot:tool": tool, "knot:identity": identity, "knot:plugin": plugin, "knot-internal:run-tool": runTool }),
    begin,
    deliver,
    takeFinished,
  }),
  writable: false,
  enumerable: false,
  configurable: true,
});
