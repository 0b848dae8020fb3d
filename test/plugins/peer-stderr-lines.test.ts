/**
 * A peer's stderr is read with bounded memory (src/plugins/peers/stderr-lines.ts): a line without
 * a newline for megabytes is logged cut and the rest skipped, not buffered; a flood is counted,
 * not logged line by line; ordinary lines (split across chunks, CRLF, the last one unterminated)
 * come through whole.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { readStderrLines } from "../../src/plugins/peers/stderr-lines.ts";

function collect(perSecond = 1_000) {
  const stream = new PassThrough();
  const lines: string[] = [];
  const dropped: number[] = [];
  readStderrLines(stream, { maxChars: 100, perSecond, onLine: (line) => lines.push(line), onDropped: (n) => dropped.push(n) });
  const ended = new Promise((resolve) => stream.on("end", resolve));
  return { stream, lines, dropped, ended };
}

test("lines split across chunks, CRLF and a last unterminated line come through whole", async () => {
  const { stream, lines, ended } = collect();
  stream.write("hel");
  stream.write("lo\r\nwor");
  stream.write("ld\nlast");
  stream.end();
  await ended;
  assert.deepEqual(lines, ["hello", "world", "last"]);
});

test("a line far past the limit is logged cut and the rest of it is skipped, never held", async () => {
  const { stream, lines, ended } = collect();
  for (let i = 0; i < 2_000; i += 1) stream.write("x".repeat(10_000)); // 20 MB, no newline
  stream.write("y".repeat(50));
  stream.write("\nafter\n");
  stream.write(`${"z".repeat(5_000)}\nend\n`); // a long line whole in one chunk is cut too
  stream.end();
  await ended;
  assert.equal(lines.length, 4);
  assert.equal(lines[0], `${"x".repeat(100)}… (line cut)`);
  assert.equal(lines[1], "after");
  assert.equal(lines[2], `${"z".repeat(100)}… (line cut)`);
  assert.equal(lines[3], "end");
});

test("a flood past the per-second limit is counted, not logged line by line", async () => {
  const { stream, lines, dropped, ended } = collect(10);
  stream.write(Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n") + "\n");
  stream.end();
  await ended;
  assert.equal(lines.length, 10);
  assert.deepEqual(dropped, [490]);
});
