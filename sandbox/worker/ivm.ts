/**
 * The one place isolated-vm enters the project. Only the sandbox worker process imports this file;
 * the server process never loads isolated-vm (isolates live behind the process wall).
 */
import ivm from "isolated-vm";

export type Isolate = ivm.Isolate;
export type Context = ivm.Context;
export type Module = ivm.Module;
export type Reference<T = unknown> = ivm.Reference<T>;
export type Script = ivm.Script;
/** V8's code cache of a compiled script: bytes for V8's compiler, never handed to a guest realm. */
export type CodeCache = ivm.ExternalCopy<ArrayBuffer>;

export interface IsolateOptions {
  readonly memoryMb: number;
  readonly onCatastrophicError: (message: string) => void;
}

export function createIsolate(options: IsolateOptions): Isolate {
  return new ivm.Isolate({ memoryLimit: options.memoryMb, onCatastrophicError: options.onCatastrophicError });
}

/**
 * Host functions are handed to a context only this way: a Callback copies its (string) arguments.
 * Fire-and-forget ("ignored"): the guest does not wait for the worker's thread to run it. A guest
 * running as an asynchronous task would otherwise stop for two thread hops per call (~70 µs here);
 * isolated-vm queues these calls on the worker's thread in the order they were made, before the
 * end of the task that made them, so the worker sees a run's reports before its verdict.
 */
export function createCallback(fn: (...args: unknown[]) => void): ivm.Callback {
  return new ivm.Callback(fn, { ignored: true });
}

/**
 * The guest's one synchronous Callback: it returns once the worker's thread has run it, that is,
 * after every fire-and-forget call queued before it (the queue is first in, first out). The guest
 * calls it every GUEST_CAPS.reportsPerWait reports, so it can never be far ahead of the worker.
 */
export function createWaitingCallback(fn: () => string): ivm.Callback {
  return new ivm.Callback(fn);
}
