/**
 * Why: these two functions are everything guest code can invoke in the worker (besides `wait`, which
 * does nothing: guest-code.ts). They take strings
 * (isolated-vm Callbacks copy arguments; anything but a string is ignored) and answer nothing: the
 * guest does not wait for them (fire-and-forget Callbacks, see ivm.ts), so a log line or a
 * knot:plugin call no longer costs the isolate two thread hops. Whatever the guest needs back (a
 * call's answer or refusal) goes in through its `deliver`, an asynchronous task under the run's
 * limits. They never throw (a thrown host error would carry a host stack into the isolate), check
 * sizes before parsing, and turn every report into a decision the run owns. They grant nothing the
 * public knot:* API does not: if user code ever reached them, it could only do what it already can.
 */
import type { RunEvent, RunJob } from "../protocol.ts";
import { GUEST_REPORTABLE_CODES, safeError } from "../errors.ts";
import type { WorkerVerdict } from "../ipc.ts";
import { EMIT_KINDS, GUEST_CAPS, loopbackLimitMessage } from "../guest/bindings.ts";
import { parseGuestVerdict } from "./guest-verdict.ts";
import { parseLoopbackRequest, type LoopbackRequest } from "./loopback.ts";
import type { RunLog } from "./run-log.ts";

export interface BindingTarget {
  readonly job: RunJob;
  readonly log: RunLog;
  onEvent(event: RunEvent): void;
  isSettled(): boolean;
  /**
   * The run ends with this verdict: the runner finished (its result, or its last return*'s), a limit
   * tripped in the guest, or the worker stops it (e.g. LOOPBACK_LIMIT); disposal happens after.
   */
  settle(verdict: WorkerVerdict): void;
  /** Starts the HTTP call the guest waits on under `id`; its answer goes to the guest's deliver. */
  startCall(id: string, request: LoopbackRequest): void;
  /** Answers the guest's call `id` with a refusal (through its deliver, as an answer would go). */
  refuseCall(id: string, code: string, message: string): void;
  /** Messages of coded errors the guest made, so a top-level throw of one keeps its code. */
  readonly codedMessages: Map<string, string>;
}

export interface GuestBindings {
  emit(kind: unknown, payload: unknown): void;
  call(id: unknown, request: unknown): void;
}

/** The ids the guest runtime gives its calls: c1, c2, … (guest/runtime.ts startCall). */
const CALL_ID = /^c([1-9][0-9]{0,8})$/;

function progressEvent(payload: string): Extract<RunEvent, { type: "progress" }> | undefined {
  if (payload.length > GUEST_CAPS.progressMessageChars * 6 + 256) return undefined;
  try {
    const { done, total, message } = JSON.parse(payload) as Record<string, unknown>;
    if (typeof done !== "number" || !Number.isFinite(done)) return undefined;
    if (total !== undefined && (typeof total !== "number" || !Number.isFinite(total))) return undefined;
    if (message !== undefined && typeof message !== "string") return undefined;
    return {
      type: "progress",
      done,
      ...(total !== undefined ? { total } : {}),
      ...(message !== undefined ? { message: message.slice(0, GUEST_CAPS.progressMessageChars) } : {}),
    };
  } catch {
    return undefined;
  }
}

function codedError(payload: string): { code: string; message: string } | undefined {
  if (payload.length > GUEST_CAPS.errorMessageChars * 6 + 256) return undefined;
  try {
    const { code, message } = JSON.parse(payload) as Record<string, unknown>;
    return typeof code === "string" && GUEST_REPORTABLE_CODES.has(code) && typeof message === "string" ? { code, message } : undefined;
  } catch {
    return undefined;
  }
}

export function createGuestBindings(target: BindingTarget): GuestBindings {
  const { job } = target;
  let progressCount = 0;
  let progressMessageCharsLeft: number = GUEST_CAPS.progressMessageTotalChars;
  let callCount = 0;
  /** The number of the guest's last call id: each must be the next, so no two calls share an id. */
  let lastCall = 0;

  function emit(kind: unknown, payload: unknown): void {
    if (typeof kind !== "string" || typeof payload !== "string" || target.isSettled()) return;
    try {
      switch (kind) {
        case EMIT_KINDS.console:
        case EMIT_KINDS.log:
          target.log.add(kind, payload);
          break;
        case EMIT_KINDS.progress: {
          const parsed = progressCount < GUEST_CAPS.progressEvents ? progressEvent(payload) : undefined;
          if (parsed !== undefined) {
            progressCount += 1;
            // The guest keeps to the same total; a guest that does not loses its messages here.
            const { message, ...numbers } = parsed;
            const kept = message === undefined ? undefined : message.slice(0, Math.max(0, progressMessageCharsLeft));
            progressMessageCharsLeft -= kept?.length ?? 0;
            target.onEvent(kept ? { ...numbers, message: kept } : numbers);
          }
          break;
        }
        case EMIT_KINDS.finish:
          target.settle(parseGuestVerdict(payload, job.limits));
          break;
        case EMIT_KINDS.coded: {
          const coded = codedError(payload);
          if (coded !== undefined && target.codedMessages.size < GUEST_CAPS.codedMessages) target.codedMessages.set(coded.message, coded.code);
          break;
        }
        default:
          break;
      }
    } catch {
      target.settle({ ok: false, error: safeError("INTERNAL", "the sandbox worker could not handle a guest report") });
    }
  }

  function call(id: unknown, request: unknown): void {
    if (target.isSettled()) return; // its answer has nobody to go to
    const number = typeof id === "string" ? CALL_ID.exec(id)?.[1] : undefined;
    // Only our guest runtime calls this, with c1, c2, …: anything else is a broken runtime.
    if (number === undefined || Number(number) !== lastCall + 1) {
      target.settle({ ok: false, error: safeError("INTERNAL", "the sandbox worker received a malformed call id") });
      return;
    }
    lastCall += 1;
    const callId = id as string;
    try {
      if (typeof request !== "string" || request.length > GUEST_CAPS.callRequestChars + 1_024) {
        return target.refuseCall(callId, "LOOPBACK_FAILED", "the call request is malformed or too large");
      }
      callCount += 1;
      if (callCount > job.limits.loopbackCalls) {
        const error = safeError("LOOPBACK_LIMIT", loopbackLimitMessage(job.limits.loopbackCalls));
        return target.settle({ ok: false, error });
      }
      const parsed = parseLoopbackRequest(request);
      if (typeof parsed === "string") return target.refuseCall(callId, "LOOPBACK_FAILED", `knot:plugin.call: ${parsed}`);
      if (job.loopback === null) return target.refuseCall(callId, "LOOPBACK_FAILED", "knot:plugin calls are not available in this run");
      target.startCall(callId, parsed);
    } catch {
      target.refuseCall(callId, "LOOPBACK_FAILED", "the call could not be started");
    }
  }

  return { emit, call };
}
