// Client SDK for user tools: plugin:wordcount. The peer serves this file (fetcher); the disk copy
// is the fallback and decides that it exists. Each method is a gated loopback call.
import { call } from "knot:plugin";

export async function countWords(text) {
  return call("wordcount", "count_words", { text });
}
