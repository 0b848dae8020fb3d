/**
 * Why: user code runs after the prelude in the same realm and may replace any global or any
 * prototype method (Object.prototype, Array.prototype, JSON, Promise…). The guest runtime must keep
 * working on the real ones, so it takes every intrinsic it needs from this frozen table, captured
 * when the prelude is evaluated — before any user or plugin code exists. Methods are "uncurried"
 * (called as `fn(self, ...args)`) so a later change to a prototype cannot redirect them.
 * Poisoning can only ever confuse the user's own run: the worker checks every string it receives.
 */
type Uncurried<F> = F extends (this: infer T, ...args: infer A) => infer R ? (self: T, ...args: A) => R : never;

const bind = Function.prototype.bind;
const call = Function.prototype.call;
const uncurryThis = bind.bind(call) as <F>(fn: F) => Uncurried<F>;

export const I = Object.freeze({
  JSONStringify: JSON.stringify,
  JSONParse: JSON.parse,
  ObjectFreeze: Object.freeze,
  ObjectCreate: Object.create,
  ObjectDefineProperty: Object.defineProperty,
  ObjectHasOwn: Object.hasOwn,
  ObjectKeys: Object.keys,
  ObjectGetPrototypeOf: Object.getPrototypeOf,
  ObjectPrototype: Object.prototype,
  ArrayIsArray: Array.isArray,
  ArrayPush: uncurryThis(Array.prototype.push) as (self: unknown[], ...items: unknown[]) => number,
  ArrayJoin: uncurryThis(Array.prototype.join) as (self: readonly unknown[], sep?: string) => string,
  ArrayIncludes: uncurryThis(Array.prototype.includes) as (self: readonly unknown[], item: unknown) => boolean,
  String,
  StringSlice: uncurryThis(String.prototype.slice),
  StringTrim: uncurryThis(String.prototype.trim),
  StringToLowerCase: uncurryThis(String.prototype.toLowerCase),
  StringSplit: uncurryThis(String.prototype.split) as unknown as (self: string, sep: string) => string[],
  Number,
  NumberIsFinite: Number.isFinite,
  NumberIsInteger: Number.isInteger,
  NumberIsSafeInteger: Number.isSafeInteger,
  RegExpExec: uncurryThis(RegExp.prototype.exec),
  Error,
  TypeError,
  RangeError,
  Promise,
  PromiseReject: Promise.reject.bind(Promise) as (reason: unknown) => Promise<never>,
  Map,
  MapGet: uncurryThis(Map.prototype.get) as (self: Map<unknown, unknown>, key: unknown) => unknown,
  MapSet: uncurryThis(Map.prototype.set) as (self: Map<unknown, unknown>, key: unknown, value: unknown) => unknown,
  MapDelete: uncurryThis(Map.prototype.delete) as (self: Map<unknown, unknown>, key: unknown) => boolean,
  WeakMap,
  WeakMapGet: uncurryThis(WeakMap.prototype.get) as (self: WeakMap<object, unknown>, key: object) => unknown,
  WeakMapSet: uncurryThis(WeakMap.prototype.set) as (self: WeakMap<object, unknown>, key: object, value: unknown) => unknown,
  ReflectApply: Reflect.apply,
});

/** Defines a data property without running any setter user code may put on a prototype. */
export function defineData(target: object, key: string, value: unknown): void {
  I.ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `String(value)` that never throws (a hostile toString/Symbol.toPrimitive only spoils the text). */
export function safeString(value: unknown, fallback: string): string {
  try {
    return I.String(value);
  } catch {
    return fallback;
  }
}

/** Cuts a message to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${I.StringSlice(text, 0, max)}…` : text;
}
