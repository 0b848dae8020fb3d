/**
 * The sandbox's public API: the host (src/) imports only this file (and protocol.ts types).
 * Isolates run in supervised worker processes; see sandbox/host/create-sandbox-pool.ts.
 */
export { createSandboxPool, type SandboxPool, type SandboxPoolStats } from "./host/create-sandbox-pool.ts";
export { POOL_RANGES, type SandboxPoolOptions } from "./host/options.ts";
export { workerExitChannel } from "./host/worker-process.ts";
export { SANDBOX_ERROR_CODES, type SandboxErrorCode } from "./errors.ts";
export * from "./protocol.ts";
