/**
 * Why: user code runs after the prelude in the same realm and may replace any global or any
 * prototype method (Object.prototype, Array.prototype, JSON, Promise…). The guest runtime must keep
 * working on the real ones, so it takes every intrinsic it needs from here, captured when the
 * prelude is evaluated — before any user or plugin code exists. Methods are "uncurried" (called as
 * `fn(self, ...args)`) so a later change to a prototype cannot redirect them.
 * Poisoning can only ever confuse the user's own run: the worker checks every string it receives.
 *
 * How: guest modules import this file as a namespace (`import * as I from "./intrinsics.ts"`) and
 * call `I.JSONStringify(...)`. The bundler turns each `I.x` into a plain variable of the bundle's
 * closure, so a fresh context pays for no table object: a 36-member object literal cost ~60 µs of
 * every run (issue 13; each new context builds its own property maps). Nothing here is reachable
 * from user code: the bundle's variables live in a closure.
 */
type Uncurried<F> = F extends (this: infer T, ...args: infer A) => infer R ? (self: T, ...args: A) => R : never;

const bind = Function.prototype.bind;
const call = Function.prototype.call;
export const uncurryThis = bind.bind(call) as <F>(fn: F) => Uncurried<F>;

export const JSONStringify = JSON.stringify;
export const JSONParse = JSON.parse;
export const ObjectFreeze = Object.freeze;
export const ObjectCreate = Object.create;
export const ObjectDefineProperty = Object.defineProperty;
export const ObjectHasOwn = Object.hasOwn;
export const ObjectKeys = Object.keys;
export const ArrayIsArray = Array.isArray;
export const ArrayPush = uncurryThis(Array.prototype.push) as (self: unknown[], ...items: unknown[]) => number;
export const ArrayJoin = uncurryThis(Array.prototype.join) as (self: readonly unknown[], sep?: string) => string;
export const ArrayIncludes = uncurryThis(Array.prototype.includes) as (self: readonly unknown[], item: unknown) => boolean;
export const String = globalThis.String;
export const StringSlice = uncurryThis(String.prototype.slice);
export const StringCharCodeAt = uncurryThis(String.prototype.charCodeAt);
export const Number = globalThis.Number;
export const NumberIsFinite = Number.isFinite;
export const NumberIsSafeInteger = Number.isSafeInteger;
export const NumberToString = uncurryThis(Number.prototype.toString) as (self: number, radix?: number) => string;
export const RegExpExec = uncurryThis(RegExp.prototype.exec);
export const Error = globalThis.Error;
export const TypeError = globalThis.TypeError;
export const RangeError = globalThis.RangeError;
export const Promise = globalThis.Promise;
export const PromiseReject = Promise.reject.bind(Promise) as (reason: unknown) => Promise<never>;
export const Map = globalThis.Map;
export const Symbol = globalThis.Symbol;
export const MapGet = uncurryThis(Map.prototype.get) as (self: Map<unknown, unknown>, key: unknown) => unknown;
export const MapSet = uncurryThis(Map.prototype.set) as (self: Map<unknown, unknown>, key: unknown, value: unknown) => unknown;
export const MapDelete = uncurryThis(Map.prototype.delete) as (self: Map<unknown, unknown>, key: unknown) => boolean;
export const WeakMap = globalThis.WeakMap;
export const WeakMapGet = uncurryThis(WeakMap.prototype.get) as (self: WeakMap<object, unknown>, key: object) => unknown;
export const WeakMapSet = uncurryThis(WeakMap.prototype.set) as (self: WeakMap<object, unknown>, key: object, value: unknown) => unknown;
export const ReflectApply = Reflect.apply;

/** Defines a data property without running any setter user code may put on a prototype. */
export function defineData(target: object, key: string, value: unknown): void {
  ObjectDefineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `String(value)` that never throws (a hostile toString/Symbol.toPrimitive only spoils the text). */
export function safeString(value: unknown, fallback: string): string {
  try {
    return String(value);
  } catch {
    return fallback;
  }
}

/** Cuts a message to `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${StringSlice(text, 0, max)}…` : text;
}
