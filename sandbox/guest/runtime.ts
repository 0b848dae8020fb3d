/**
 * Why: this is the guest's only line to the worker. It runs in the prelude, before any user code:
 * it takes the worker's bindings off the global (so user code never sees them), receives the run's
 * data (begin), and exposes small functions that hand the worker strings only. It holds no secret: the
 * bindings are no more powerful than the public knot:* API, because the worker re-checks every
 * string it receives (type, size, JSON, names, counts).
 */
import { GLOBAL_NAMES, EMIT_KINDS, GUEST_CAPS, loopbackLimitMessage } from "./bindings.ts";
import * as I from "./intrinsics.ts";
import { clip, defineData } from "./intrinsics.ts";
import type { GuestUserData } from "./user-data.ts";

// Emit and call answer nothing: the guest does not wait for them (sandbox/worker/ivm.ts); a call's
// answer or refusal comes back through deliver(). So the guest paces itself (paced(): every
// GUEST_CAPS.reportsPerWait reports it waits until the worker has handled them) and caps every kind
// of report as the worker does: a loop cannot queue more of them than the worker keeps up with.
type Emit = (kind: string, payload: string) => void;
type Call = (id: string, request: string) => void;
type Wait = () => string;

const globals = globalThis as unknown as Record<string, unknown>;
const hostEmit = globals[GLOBAL_NAMES.emit] as Emit;
const hostCall = globals[GLOBAL_NAMES.call] as Call;
const hostWait = globals[GLOBAL_NAMES.wait] as Wait;
delete globals[GLOBAL_NAMES.emit];
delete globals[GLOBAL_NAMES.call];
delete globals[GLOBAL_NAMES.wait];
if (typeof hostEmit !== "function" || typeof hostCall !== "function" || typeof hostWait !== "function") {
  throw new I.Error("knot sandbox: the worker bindings are missing");
}

export type { GuestUserData } from "./user-data.ts";

interface JobData {
  /** "sink": the default export gets the event (the params) itself; see RunEntry in protocol.ts. */
  readonly entry: "tool" | "sink";
  readonly params: Record<string, unknown>;
  readonly user: GuestUserData;
  readonly limits: { readonly resultBytes: number; readonly logBytes: number; readonly loopbackCalls: number };
}

// The context may be prepared before its run exists; the worker hands the run's data to begin()
// once, before any user code is linked.
let job: JobData | undefined;
let paramsText = "{}";
let userText = "{}";

/** Called by the worker only (through the bundle's hand-off, see bundle.ts), once per context. */
export function begin(jobText: unknown): string {
  if (job !== undefined || typeof jobText !== "string") return "refused";
  job = I.JSONParse(jobText) as JobData;
  paramsText = I.JSONStringify(job.params);
  userText = I.JSONStringify(job.user);
  logCharsLeft = job.limits.logBytes;
  return "";
}

function current(): JobData {
  if (job === undefined) throw new I.Error("knot sandbox: the run has not begun");
  return job;
}

export const limits = (): JobData["limits"] => current().limits;
export const isSinkRun = (): boolean => current().entry === "sink";

/** The caller's argument `name` (own properties only), or undefined. */
export function param(name: string): unknown {
  const { params } = current();
  return I.ObjectHasOwn(params, name) ? params[name] : undefined;
}

/** A fresh copy of the arguments / the caller each time, so one consumer cannot spoil another. */
export const freshParams = (): Record<string, unknown> => I.JSONParse(paramsText) as Record<string, unknown>;
export const freshUser = (): GuestUserData => I.JSONParse(userText) as GuestUserData;

/** JSON text of a string primitive (no toJSON lookup happens for primitives). */
export const q = (text: string): string => I.JSONStringify(text);

let queued = 0;

/** After every GUEST_CAPS.reportsPerWait reports, waits until the worker has handled them. */
function paced(): void {
  queued += 1;
  if (queued < GUEST_CAPS.reportsPerWait) return;
  queued = 0;
  hostWait();
}

export function emit(kind: string, payload: string): void {
  hostEmit(kind, payload);
  paced();
}

// ---- coded errors: catchable Errors with a `.code`, remembered so the runner can report the code
const codes = new I.WeakMap<object, string>();
/** The messages reported so far (the worker keeps the first GUEST_CAPS.codedMessages distinct ones). */
const codedSent = new I.Map<string, true>();
let codedCount = 0;

export function codedError(code: string, message: string): Error {
  const text = clip(message, GUEST_CAPS.errorMessageChars);
  const error = new I.Error(text);
  defineData(error, "code", code);
  I.WeakMapSet(codes, error, code);
  // A repeated message is not sent again; past the cap, nothing more is.
  if (codedCount < GUEST_CAPS.codedMessages && I.MapGet(codedSent, text) === undefined) {
    I.MapSet(codedSent, text, true);
    codedCount += 1;
    emit(EMIT_KINDS.coded, `{"code":${q(code)},"message":${q(text)}}`);
  }
  return error;
}

export function codeOf(value: unknown): string | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  return I.WeakMapGet(codes, value) as string | undefined;
}

// ---- the log budget, shared by console.* and knot:tool log(); the worker counts bytes exactly
let logCharsLeft = -1;

export function sendLog(kind: "console" | "log", level: string, message: string): void {
  if (logCharsLeft < 0) return;
  const text = message.length > logCharsLeft + 1 ? I.StringSlice(message, 0, logCharsLeft + 1) : message;
  // A line costs one more than its text (its newline), as the worker counts it: an empty line is
  // not free. May go below 0: the worker then sees the overflow and marks the cut.
  logCharsLeft -= text.length + 1;
  emit(kind === "console" ? EMIT_KINDS.console : EMIT_KINDS.log, `{"level":${q(level)},"message":${q(text)}}`);
}

// ---- return* and the end of the run
/** Thrown by every return*: ends the handler; the worker keeps the last result reported. */
export const RETURN_SIGNAL: object = I.ObjectFreeze(
  I.ObjectCreate(null, { message: { value: "knot:tool return (ends the run)", enumerable: true } }),
);
let returned = false;
export const hasReturned = (): boolean => returned;

/** Ends the run with RESULT_TOO_LARGE when `chars` already exceeds the limit (chars ≤ UTF-8 bytes). */
export function checkResultSize(chars: number): void {
  const { resultBytes } = limits();
  if (chars > resultBytes) fail("RESULT_TOO_LARGE", `the result is larger than ${resultBytes} bytes`);
}

/** Reports a result (JSON text of a ToolResult) and ends the run; a later return* replaces it. */
export function returnResult(resultJson: string, contentChars: number): never {
  checkResultSize(contentChars);
  return returnVerdict(`{"ok":true,"result":${resultJson}}`);
}

/** returnError(): like a result, the last return* wins. */
export function returnFailure(code: string, message: string): never {
  return returnVerdict(`{"ok":false,"error":{"code":${q(code)},"message":${q(clip(message, GUEST_CAPS.errorMessageChars))}}}`);
}

/**
 * The last return*'s verdict stays in the guest until the run ends (finishReturned, or the worker's
 * takeFinished after a failed task): reporting it at once cost a call back to the worker's thread
 * while the isolate waited (two thread hops per run, ~80 µs measured here; issue 13), and a tool calling
 * return* in a loop sent each copy across.
 */
let lastReturn = "";

function returnVerdict(verdictJson: string): never {
  returned = true;
  lastReturn = verdictJson;
  throw RETURN_SIGNAL;
}

/** The handler ended after a return*: the last one is the run's verdict (unless something finished first). */
export function finishReturned(): void {
  finish(lastReturn);
}

/** Ends the run at once with an error the worker reports as is (a limit, an unserialisable value). */
export function fail(code: string, message: string): never {
  finish(`{"ok":false,"error":{"code":${q(code)},"message":${q(clip(message, GUEST_CAPS.errorMessageChars))}}}`);
  returned = true;
  throw RETURN_SIGNAL;
}

// The verdict waits here for the worker, which reads it with takeFinished() as soon as the isolate
// task that produced it (evaluate, or a deliver) has come back: no call back to the worker's
// thread while the task runs (issue 13). The first one wins, as when it was reported at once.
let finished = "";

export function finish(payload: string): void {
  if (finished === "") finished = payload;
}

/**
 * Called by the worker only (through the bundle's hand-off), between isolate tasks. `afterFailure`
 * (a task threw: the run ends now): with no verdict finished, the last return* is the answer.
 */
export function takeFinished(afterFailure?: unknown): string {
  const payload = finished !== "" ? finished : afterFailure === true ? lastReturn : "";
  finished = "";
  if (afterFailure === true) lastReturn = "";
  return payload;
}

// ---- knot:plugin calls: the worker answers later through deliver()
interface Waiter {
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}
const waiting = new I.Map<string, Waiter>();

let callsMade = 0;

/**
 * Starts a knot:plugin call: c1, c2, … in order (the worker refuses anything else). One past the
 * limit still goes to the worker, which ends the run with LOOPBACK_LIMIT; any later one is refused
 * here without being sent.
 */
export function startCall(request: string): Promise<unknown> {
  const { loopbackCalls } = limits();
  if (callsMade > loopbackCalls) {
    return I.PromiseReject(codedError("LOOPBACK_LIMIT", loopbackLimitMessage(loopbackCalls)));
  }
  callsMade += 1;
  const id = `c${callsMade}`;
  const answer = new I.Promise<unknown>((resolve, reject) => {
    I.MapSet(waiting, id, { resolve, reject });
  });
  hostCall(id, request);
  paced();
  return answer;
}

/** Called by the worker (never by guest code: it is not reachable from any public module). */
export function deliver(id: unknown, payload: unknown): string {
  if (typeof id !== "string" || typeof payload !== "string") return "bad arguments";
  const waiter = I.MapGet(waiting, id) as Waiter | undefined;
  if (waiter === undefined) return "unknown call";
  I.MapDelete(waiting, id);
  const reply = I.JSONParse(payload) as Record<string, unknown>;
  if (reply.ok === true) {
    const body = reply.body as string;
    waiter.resolve(reply.json === true ? I.JSONParse(body) : body);
  } else {
    waiter.reject(codedError(reply.code as string, reply.message as string));
  }
  return "";
}
