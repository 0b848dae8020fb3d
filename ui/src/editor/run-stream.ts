/** Reads `/api/runs`' NDJSON stream: progress and log lines while the tool runs, then the outcome. */
import { request } from "../lib/api.ts";

export type RunLine =
  | { type: "progress"; done: number; total?: number; message?: string }
  | { type: "log"; level: string; message: string }
  | { type: "outcome"; ok: true; result: unknown; resultKind: string; log: { level: string; message: string }[]; durationMs: number }
  | { type: "outcome"; ok: false; error: { code: string; message: string }; log: { level: string; message: string }[]; durationMs: number }
  | { type: "error"; code: string; message: string };

export async function streamRun(body: unknown, signal: AbortSignal, onLine: (line: RunLine) => void): Promise<void> {
  const res = await request("POST", "/api/runs", body, { signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (text !== "") onLine(JSON.parse(text) as RunLine);
    }
  }
  if (buffer.trim() !== "") onLine(JSON.parse(buffer) as RunLine);
}
