/**
 * Thin wrappers the composition root puts around parts that already see every event worth
 * counting, so those parts need no metrics code: the audit log (one row per call, on every
 * surface), the authenticator (every refused credential), the sandbox as the runner uses it
 * (every run) and the plugin pool's handler calls. Each also feeds the debug log with the
 * request id and, where a graceful shutdown must wait for it, a pending-work count. Sandbox worker
 * exits (a diagnostics channel) go to the log.
 */
import { workerExitChannel, type RunHooks, type RunJob, type RunOutcome } from "../../sandbox/index.ts";
import { auditAround } from "../audit/audit-around.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import type { PendingWork } from "../lifecycle/pending-work.ts";
import type { Logger } from "../log.ts";
import type { HandlerCall } from "../plugins/plugin-pool.ts";
import type { SandboxRunner } from "../tools/tool-runner.ts";
import type { Metrics } from "./metrics.ts";

/** Counts each audited call; the write is pending work until the row is stored. */
export function observeAudit(audit: AuditLog, metrics: Metrics, writes: PendingWork): AuditLog {
  const observed: AuditLog = {
    ...audit,
    // Rows of audited calls are counted too: around records through this wrapper's record.
    around: auditAround((entry) => observed.record(entry)),
    async record(entry) {
      metrics.callAudited(entry.surface, entry.outcome, entry.durationMs);
      const done = writes.begin();
      try {
        await audit.record(entry);
      } finally {
        done();
      }
    },
  };
  return observed;
}

/** Counts credentials refused (the caller is answered 401). */
export function observeAuth(auth: Authenticator, metrics: Metrics): Authenticator {
  return {
    ...auth,
    async authenticate(credential) {
      const principal = await auth.authenticate(credential);
      if (!principal) metrics.authRefused(credential.route);
      return principal;
    },
  };
}

/** Counts each sandbox run by outcome (limit trips included) and logs it with its request id. */
export function observeSandbox(sandbox: SandboxRunner, options: { metrics: Metrics; logger: Logger; runs: PendingWork }): SandboxRunner {
  return {
    async run(job: RunJob, hooks: RunHooks): Promise<RunOutcome> {
      const done = options.runs.begin();
      try {
        const outcome = await sandbox.run(job, hooks);
        const code = outcome.ok ? "ok" : outcome.error.code;
        options.metrics.sandboxRun(code, outcome.durationMs);
        options.logger.debug("tool run", { requestId: job.requestId ?? null, runId: job.runId, tool: job.filename, outcome: code, durationMs: Math.round(outcome.durationMs) });
        return outcome;
      } finally {
        done();
      }
    },
  };
}

/** What the plugin pool reports for each handler invocation. */
export function handlerCallObserver(metrics: Metrics, logger: Logger): (call: HandlerCall) => void {
  return function onHandlerCall(call) {
    metrics.handlerCall(call.plugin, call.outcome, call.durationMs);
    logger.debug("handler call", { requestId: call.requestId, plugin: call.plugin, fn: call.fn, method: call.method, outcome: call.outcome, durationMs: Math.round(call.durationMs) });
  };
}

/**
 * Logs each sandbox worker that exits, with its cause (deadline, memory, heartbeat, crash…) and the
 * tail of its stderr. The channel is process-wide: apps sharing a process each see every exit.
 * Answers the unsubscribe.
 */
export function logWorkerExits(logger: Logger): () => void {
  const onExit = (message: unknown) => {
    const { pid, cause, detail, stderrTail } = message as { pid?: number; cause?: string; detail?: string; stderrTail?: string };
    const fields = { pid, cause, detail, stderrTail: stderrTail || undefined };
    if (cause === "close") logger.debug("sandbox worker stopped", fields);
    else logger.warn("sandbox worker exited", fields);
  };
  workerExitChannel.subscribe(onExit);
  return () => workerExitChannel.unsubscribe(onExit);
}
