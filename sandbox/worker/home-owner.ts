/**
 * Why: a warm isolate serves the runs of one user *and one tool's code* (isolate-homes.ts). Some
 * isolate state belongs to no context: V8's protector cells, its guarantees behind fast paths
 * ("no prototype has elements", "no array has its own `constructor`", the original iterators,
 * `then`, species…). A clean run could invalidate them for the whole isolate, for good, and the
 * user's later runs there lost those fast paths (`map` 5–10× slower, spread ~15×; an ordinary tool
 * went over its CPU limit), also through a shared tool the victim ran. Every protector also trips
 * on objects the run makes itself (`[].constructor = Array`) and stays tripped when the change is
 * undone, so no end-of-run look at the intrinsics finds them all. Keyed by the code, what a run
 * leaves in its isolate meets only later runs of the same code, which could as well spend the CPU
 * themselves. SHA-256 (not the text): ~2 µs for a small tool, and a kept key holds 44 characters.
 */
import { hash } from "node:crypto";
import type { RunJob } from "../protocol.ts";

/** Whose warm isolate a run may take: the same user running the same tool source. */
export function homeOwner(job: RunJob): string {
  return `${job.user.id}\n${hash("sha256", job.source, "base64")}`;
}
