/**
 * A RunJob comes from host code; a malformed one is a programming error, so `run()` rejects with a
 * TypeError naming the field rather than starting a run that would fail in a confusing way.
 */
import { isModuleSet, isRunEntry, isSinkEvent, RUN_LIMIT_MINIMUMS, type RunJob } from "../protocol.ts";

function fail(field: string, rule: string): never {
  throw new TypeError(`SandboxPool.run: job.${field} ${rule}`);
}

const isStringList = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === "string");

export function checkJob(job: RunJob): void {
  if (typeof job !== "object" || job === null) fail("", "must be an object");
  if (typeof job.runId !== "string" || job.runId === "" || job.runId.length > 200) fail("runId", "must be a non-empty string");
  if (typeof job.source !== "string") fail("source", "must be a string");
  if (typeof job.filename !== "string" || job.filename === "") fail("filename", "must be a non-empty string");
  if (typeof job.params !== "object" || job.params === null || Array.isArray(job.params)) fail("params", "must be an object");
  const user = job.user;
  if (typeof user !== "object" || user === null) fail("user", "must be an object");
  if (typeof user.id !== "string" || typeof user.name !== "string" || typeof user.isAdmin !== "boolean") {
    fail("user", "must have string id and name and a boolean isAdmin");
  }
  if (!isStringList(user.groups) || !isStringList(user.permissions) || !isStringList(user.pluginPermissions)) {
    fail("user", "groups, permissions and pluginPermissions must be string arrays");
  }
  if (job.loopback !== null) {
    if (typeof job.loopback !== "object" || typeof job.loopback.token !== "string" || typeof job.loopback.baseUrl !== "string") {
      fail("loopback", "must be null or { baseUrl, token }");
    }
    if (!/^https?:\/\/[^/?#]+\/?$/.test(job.loopback.baseUrl)) fail("loopback.baseUrl", "must be an http(s) origin");
  }
  if (typeof job.limits !== "object" || job.limits === null) fail("limits", "must be an object");
  for (const [name, minimum] of Object.entries(RUN_LIMIT_MINIMUMS)) {
    const value = job.limits[name as keyof typeof RUN_LIMIT_MINIMUMS];
    if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) fail(`limits.${name}`, `must be an integer ≥ ${minimum}`);
  }
  if (job.requestId !== undefined && typeof job.requestId !== "string") fail("requestId", "must be a string when present");
  if (job.entry !== undefined && !isRunEntry(job.entry)) fail("entry", 'must be "tool" or "sink" when present');
  if (job.modules !== undefined && !isModuleSet(job.modules)) fail("modules", "must be an object of specifier → source string or null");
  if (job.entry === "sink" && !isSinkEvent(job.params)) fail("params", "must be the event {id, type, at, data} when entry is \"sink\"");
}
