/**
 * Why: `console.*` is the guest's print. The isolate's own console writes nowhere; this one sends
 * each line to the run's log (bounded by limits.logBytes, see runtime.sendLog). When the tool
 * returns nothing, the worker answers with the printed lines, as knot's `print` does.
 */
import * as I from "./intrinsics.ts";
import { inspectAll } from "./inspect.ts";
import { sendLog } from "./runtime.ts";

function printer(level: "debug" | "info" | "warn" | "error") {
  return function print(...values: unknown[]): void {
    sendLog("console", level, inspectAll(values));
  };
}

export function installConsole(): void {
  const guestConsole = I.ObjectFreeze({
    debug: printer("debug"),
    trace: printer("debug"),
    info: printer("info"),
    log: printer("info"),
    warn: printer("warn"),
    error: printer("error"),
  });
  I.ObjectDefineProperty(globalThis, "console", { value: guestConsole, writable: true, enumerable: false, configurable: true });
}
