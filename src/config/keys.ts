/**
 * The vocabulary of the config declaration (CONFIG_KEYS in src/config.ts): one `Key` per TOML key, saying
 * where it lives in the file, its TOML type, its default, what it means (the README's key table
 * is generated from it), and how a present value is read. `ConfigOf` turns a tree of keys into
 * the config's TypeScript type, so the type, the defaults and the parser cannot drift apart.
 */
import path from "node:path";
import { KnotError } from "../errors.ts";
import { isPostgresUrl } from "../store/postgres/url.ts";

/** The TOML type a value must have before it is read (checked with the messages of read-keys.ts). */
export type TomlType = "string" | "number" | "boolean" | "string[]" | "table";

export interface ReadContext {
  /** The config file's folder: relative paths in the file are relative to it. */
  readonly baseDir: string;
}

export interface Key<T, Optional extends boolean = boolean> {
  /** `section.key` in the TOML file (a whole-section key, such as `plugins`, has no dot). */
  readonly toml: string;
  readonly type: TomlType;
  /** Used when the file does not set the key; an optional key without one is left out. */
  readonly default: T | undefined;
  readonly optional: Optional;
  /** One line for the README's key table. */
  readonly doc: string;
  /** The README's "default" column when `default` does not say it (it is decided elsewhere). */
  readonly defaultText?: string;
  /** Turns a value of the right TOML type into the config's value; throws CONFIG_INVALID naming the key. */
  read(value: unknown, context: ReadContext): T;
}

/** A tree of keys, shaped like the config object it declares. */
export interface KeyTree {
  readonly [field: string]: Key<unknown> | KeyTree;
}

type Flat<T> = { [K in keyof T]: T[K] };
type RequiredFields<S> = { [K in keyof S]: S[K] extends Key<unknown, true> ? never : K }[keyof S];
type OptionalFields<S> = { [K in keyof S]: S[K] extends Key<unknown, true> ? K : never }[keyof S];
type ValueOf<N> = N extends Key<infer T> ? T : ConfigOf<N>;

/** The config type a key tree declares: optional keys become optional fields. */
export type ConfigOf<S> = Flat<{ readonly [K in RequiredFields<S>]: ValueOf<S[K]> } & { readonly [K in OptionalFields<S>]?: ValueOf<S[K]> }>;

export function invalid(toml: string, message: string): KnotError {
  return new KnotError("CONFIG_INVALID", `config: ${message}`, { where: toml });
}

const same = <T>(value: unknown): T => value as T;

/** The whole numbers a number key takes. */
export interface NumberRange {
  readonly min: number;
  readonly max: number;
}

/** Node's timers take at most this many ms: a longer delay fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;
export const COUNT: NumberRange = { min: 0, max: Number.MAX_SAFE_INTEGER };
export const AT_LEAST_ONE: NumberRange = { min: 1, max: Number.MAX_SAFE_INTEGER };
/** A delay or timeout: a whole number of ms in Node's timer range. */
export const DELAY_MS: NumberRange = { min: 0, max: MAX_TIMER_MS };
export const TIMEOUT_MS: NumberRange = { min: 1, max: MAX_TIMER_MS };

function wholeIn(toml: string, { min, max }: NumberRange): (value: unknown) => number {
  return (value) => {
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      throw invalid(toml, `${toml} must be a whole number from ${min} to ${max}, got ${String(value)}`);
    }
    return value as number;
  };
}

export const key = {
  /** A whole number in `range` (by default any count from 0): a value the server would accept and then break on is refused at load. */
  number: (toml: string, defaultValue: number, doc: string, range: NumberRange = COUNT): Key<number, false> =>
    ({ toml, type: "number", default: defaultValue, optional: false, doc, read: wholeIn(toml, range) }),
  /** A number left out when not set (its default is decided by the part that uses it). */
  optionalNumber: (toml: string, doc: string, defaultText: string, range: NumberRange = COUNT): Key<number, true> =>
    ({ toml, type: "number", default: undefined, optional: true, doc, defaultText, read: wholeIn(toml, range) }),
  string: (toml: string, defaultValue: string, doc: string): Key<string, false> =>
    ({ toml, type: "string", default: defaultValue, optional: false, doc, read: same }),
  /** A string whose absence is `null`. */
  nullableString: (toml: string, doc: string, read: (value: string) => string = same): Key<string | null, false> =>
    ({ toml, type: "string", default: null, optional: false, doc, defaultText: "none", read: (value) => read(value as string) }),
  boolean: (toml: string, defaultValue: boolean, doc: string): Key<boolean, false> =>
    ({ toml, type: "boolean", default: defaultValue, optional: false, doc, read: same }),
  strings: <O extends boolean = false>(toml: string, defaultValue: readonly string[], doc: string, options: { optional?: O; each?: (value: string) => string } = {}): Key<readonly string[], O> => ({
    toml, type: "string[]", default: Object.freeze([...defaultValue]), optional: (options.optional ?? false) as O, doc,
    read: (value) => Object.freeze((value as string[]).map(options.each ?? ((v) => v))),
  }),
  /** One of a few strings; `message` replaces the default `must be "a" or "b"`; `shown` is the README's default. */
  oneOf: <const V extends string, O extends boolean = false>(toml: string, values: readonly V[], defaultValue: V | undefined, doc: string, options: { optional?: O; message?: string; shown?: string } = {}): Key<V, O> => ({
    toml, type: "string", default: defaultValue, optional: (options.optional ?? false) as O, doc, ...(options.shown === undefined ? {} : { defaultText: options.shown }),
    read(value) {
      if (values.includes(value as V)) return value as V;
      throw invalid(toml, options.message ?? `${toml} must be ${values.map((v) => `"${v}"`).join(" or ")}`);
    },
  }),
  /** A file path, resolved against the config file's folder; a PostgreSQL URL is kept as written. */
  path: (toml: string, defaultValue: string, doc: string): Key<string, false> => ({
    toml, type: "string", default: defaultValue, optional: false, doc,
    read: (value, { baseDir }) => (isPostgresUrl(value as string) ? (value as string) : path.resolve(baseDir, value as string)),
  }),
  /** A whole TOML section read by its own function (`[plugins.<name>]` tables). */
  section: <T>(toml: string, defaultValue: T, doc: string, read: (value: unknown) => T): Key<T, false> =>
    ({ toml, type: "table", default: defaultValue, optional: false, doc, defaultText: "none", read }),
};

export function isKey(node: Key<unknown> | KeyTree): node is Key<unknown> {
  return typeof (node as Key<unknown>).read === "function" && typeof (node as Key<unknown>).toml === "string";
}

/** The same key, with the README's default column spelled out (the default is decided elsewhere). */
export function shownDefault<T>(node: Key<T, false>, text: string): Key<T, false> {
  return { ...node, defaultText: text };
}
