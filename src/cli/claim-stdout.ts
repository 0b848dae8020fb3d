/**
 * Why: over stdio, stdout is the MCP channel, and one stray line on it (a plugin's `console.log`,
 * at import or in a handler) is a message the client cannot parse. This hands the channel to the
 * one writer that may use it and sends everything else written to `process.stdout` — the console
 * included, which writes through it — to stderr. A client that stops reading (EPIPE) is reported
 * to that writer (the line transport ends the connection), never thrown at the process.
 */
import { Writable } from "node:stream";

export function claimStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (chunk: unknown, callback: (error?: Error | null) => void) => boolean;
  stdout.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
    process.stderr.write(chunk as string, encoding as BufferEncoding, callback as () => void)) as typeof stdout.write;
  stdout.on("error", () => {}); // the same failure reaches the channel's own writes below
  return new Writable({
    write(chunk, _encoding, callback) {
      write(chunk, (error) => callback(error ?? null));
    },
  });
}
