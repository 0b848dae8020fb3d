/**
 * The run's log: console.* and knot:tool log() lines, bounded by limits.logBytes (UTF-8), each line
 * charged its bytes and one more (its newline in the printed output: an empty line is not free,
 * or a flood of `console.log()` reached the host line by line without end). When the budget is
 * spent the last line is cut, one marker line is added and the rest is dropped: a noisy tool is
 * truncated, not failed. Every kept line is also sent as a RunEvent while the run goes on.
 * console.* lines are kept apart as the "printed" output (knot's print), used when a tool returns
 * nothing.
 */
import type { LogLine, RunEvent } from "../protocol.ts";

export const LOG_TRUNCATED_MARKER = "[log truncated: the run reached limits.logBytes]";
const LEVELS = new Set(["debug", "info", "warn", "error"]);

export interface RunLog {
  /** `payload` is the guest's JSON `{level, message}`; anything malformed is dropped. */
  add(source: "console" | "log", payload: string): void;
  printed(): string | undefined;
}

/** The longest prefix of `text` that fits in `bytes` UTF-8 bytes, never splitting a character. */
export function clipUtf8(text: string, bytes: number): string {
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return encoded.subarray(0, end).toString("utf8");
}

export function createRunLog(logBytes: number, onEvent: (event: RunEvent) => void): RunLog {
  let left = logBytes;
  let truncated = false;
  const printedLines: string[] = [];

  function keep(source: "console" | "log", line: LogLine): void {
    if (source === "console") printedLines.push(line.message);
    onEvent({ type: "log", level: line.level, message: line.message });
  }

  return {
    add(source, payload) {
      if (truncated || payload.length > logBytes * 6 + 64) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        return;
      }
      const { level, message } = (parsed ?? {}) as { level?: unknown; message?: unknown };
      if (typeof level !== "string" || !LEVELS.has(level) || typeof message !== "string") return;
      const size = Buffer.byteLength(message, "utf8") + 1;
      if (size <= left) {
        left -= size;
        keep(source, { level: level as LogLine["level"], message });
        return;
      }
      const cut = clipUtf8(message, Math.max(0, left - 1));
      left = 0;
      truncated = true;
      if (cut !== "") keep(source, { level: level as LogLine["level"], message: cut });
      onEvent({ type: "log", level: "warn", message: LOG_TRUNCATED_MARKER });
    },
    printed() {
      return printedLines.length === 0 ? undefined : printedLines.join("\n");
    },
  };
}
