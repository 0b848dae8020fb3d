/**
 * The host's log: pino, one JSON object per line on stderr (or a given sink). Details that must not
 * reach callers (stacks, paths, SQL) go here and only here; credentials never do (`authorization`,
 * `token` and `secret` fields are redacted). This is the only file that imports pino.
 *
 * @example
 *   const log = createLogger({ level: "debug" });
 *   log.info("tool run", { requestId, tool: "weather" });
 *   // {"level":"info","time":"2026-…","msg":"tool run","requestId":"…","tool":"weather"}
 */
import pino from "pino";

export type LogLevel = "debug" | "info" | "warn" | "error";
export const LOG_LEVELS: readonly LogLevel[] = Object.freeze(["debug", "info", "warn", "error"]);

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  readonly level?: LogLevel | "silent";
  /** Receives each line without its newline (tests, custom sinks); default: stderr. */
  readonly write?: (line: string) => void;
  /** Fields on every line. */
  readonly fields?: Record<string, unknown>;
}

const REDACTED_PATHS = ["authorization", "*.authorization", "token", "*.token", "secret", "*.secret"];

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write;
  const destination = write
    ? { write: (chunk: string) => write(chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk) }
    : pino.destination({ dest: 2, sync: true });
  const root = pino({
    level: options.level ?? "info",
    base: null,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { error: pino.stdSerializers.err },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
  }, destination);
  return wrap(options.fields ? root.child(options.fields) : root);
}

function wrap(log: pino.Logger): Logger {
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
    child: (fields) => wrap(log.child(fields)),
  };
}

/** For tests and quiet CLI commands. */
export const silentLogger: Logger = createLogger({ level: "silent", write: () => {} });
