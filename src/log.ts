/**
 * The host's log: one JSON object per line on stderr (or a given sink). Details that must not
 * reach callers (stacks, paths, SQL) go here and only here.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void; fields?: Record<string, unknown> } = {}): Logger {
  const min = ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const base = options.fields ?? {};
  const emit = (level: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[level] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields }, errorReplacer));
  };
  return {
    debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error"),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack, code: (value as { code?: unknown }).code };
  return value;
}

/** For tests and quiet CLI commands. */
export const silentLogger: Logger = createLogger({ write: () => {} });
