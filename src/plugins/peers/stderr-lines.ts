/**
 * A peer's stderr as log lines, with bounded memory: a line longer than `maxChars` is logged cut
 * (marked) and the rest of it is dropped up to its newline, instead of being buffered whole (a peer
 * writing megabytes without a newline grew the server's memory without limit); past `perSecond`
 * lines in a second the rest of that second is counted, not logged, and the count is logged once.
 */
import type { Readable } from "node:stream";

export interface StderrLineOptions {
  readonly maxChars: number;
  readonly perSecond: number;
  readonly onLine: (line: string) => void;
  /** How many lines a second over `perSecond` were not logged. */
  readonly onDropped: (count: number) => void;
}

export function readStderrLines(stream: Readable, options: StderrLineOptions): void {
  let partial = "";
  let cut = false; // the current line passed maxChars: the rest of it is skipped
  let windowStart = 0;
  let inWindow = 0;
  let dropped = 0;
  const emit = (line: string) => {
    const now = Date.now();
    if (now - windowStart >= 1_000) {
      if (dropped > 0) options.onDropped(dropped);
      windowStart = now;
      inWindow = 0;
      dropped = 0;
    }
    inWindow += 1;
    if (inWindow > options.perSecond) dropped += 1;
    else options.onLine(line);
  };
  /** A whole line, or the start of one that passed the limit, as it is logged. */
  const capped = (line: string) => (line.length > options.maxChars ? `${line.slice(0, options.maxChars)}… (line cut)` : line);
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
      if (!cut) emit(capped(trimCr(partial + chunk.slice(start, newline))));
      partial = "";
      cut = false;
      start = newline + 1;
    }
    if (cut) return;
    partial += chunk.slice(start);
    if (partial.length > options.maxChars) {
      emit(capped(partial));
      partial = "";
      cut = true;
    }
  });
  stream.on("end", () => {
    if (!cut && partial !== "") emit(capped(trimCr(partial)));
    if (dropped > 0) options.onDropped(dropped);
  });
}

function trimCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
