/**
 * Why: with `Intl` gone, the `toLocale*` methods and `localeCompare` still reached ICU with any
 * locale a run named, and V8/ICU keep caches for them that belong to the process, not the run: a
 * date pattern per locale name (`fi-u-ca-buddhist-nu-thai`… millions of names, ~51 KB each, never
 * freed). Clean runs grew a worker by 250 MB per 5,000 names, past every heap limit, until another
 * user's ordinary run was stopped for the worker's budget; and how fast a locale's first use was
 * told a run which locales another user had used (eighth round). So every run formats and
 * compares in the server's default locale: locale arguments are ignored. Options that only shape
 * the output (digits, currency, sensitivity…) are kept; those that name a calendar, numbering or
 * collation system (each a new cache key) are dropped, and dates take none.
 */
import * as I from "./intrinsics.ts";

type Method = (this: unknown, ...args: unknown[]) => unknown;

const NUMBER_OPTIONS = ["style", "currency", "currencyDisplay", "currencySign", "unit", "unitDisplay", "minimumIntegerDigits", "minimumFractionDigits",
  "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "useGrouping", "notation", "compactDisplay", "signDisplay",
  "roundingMode", "roundingIncrement", "roundingPriority", "trailingZeroDisplay"];
const COMPARE_OPTIONS = ["usage", "sensitivity", "ignorePunctuation", "numeric", "caseFirst"];

/** A plain copy of the listed options (each read once), or undefined when none were given. */
function kept(options: unknown, names: readonly string[]): Record<string, unknown> | undefined {
  if (options === undefined) return undefined;
  if (options === null || (typeof options !== "object" && typeof options !== "function")) return I.ObjectCreate(null) as Record<string, unknown>;
  const copy = I.ObjectCreate(null) as Record<string, unknown>;
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i]!;
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined) copy[name] = value;
  }
  return copy;
}

// The originals, captured when the prelude runs (before any user code), called as `fn(self, ...args)`.
const uncurry = I.uncurryThis as (fn: Method) => (self: unknown, ...args: unknown[]) => unknown;

const DateProto = Date.prototype;
const StringProto = String.prototype;
const dateString = uncurry(DateProto.toLocaleString as Method);
const dateDate = uncurry(DateProto.toLocaleDateString as Method);
const dateTime = uncurry(DateProto.toLocaleTimeString as Method);
const upper = uncurry(StringProto.toLocaleUpperCase as Method);
const lower = uncurry(StringProto.toLocaleLowerCase as Method);
const compare = uncurry(StringProto.localeCompare as Method);
const numberFormat = uncurry(Number.prototype.toLocaleString as Method);
const bigintFormat = uncurry(BigInt.prototype.toLocaleString as Method);

// Methods, not functions: like the originals they cannot be called with `new`.
const replacements = {
  toLocaleString(this: Date) { return dateString(this); },
  toLocaleDateString(this: Date) { return dateDate(this); },
  toLocaleTimeString(this: Date) { return dateTime(this); },
  toLocaleUpperCase(this: string) { return upper(this); },
  toLocaleLowerCase(this: string) { return lower(this); },
  localeCompare(this: string, that: string, _locales?: unknown, options?: unknown) { return compare(this, that, undefined, kept(options, COMPARE_OPTIONS)); },
  numberToLocaleString(this: number, _locales?: unknown, options?: unknown) { return numberFormat(this, undefined, kept(options, NUMBER_OPTIONS)); },
  bigintToLocaleString(this: bigint, _locales?: unknown, options?: unknown) { return bigintFormat(this, undefined, kept(options, NUMBER_OPTIONS)); },
};

export function defaultLocaleOnly(): void {
  // Plain assignments keep the originals' attributes (writable, configurable, not enumerable).
  DateProto.toLocaleString = replacements.toLocaleString as Date["toLocaleString"];
  DateProto.toLocaleDateString = replacements.toLocaleDateString as Date["toLocaleDateString"];
  DateProto.toLocaleTimeString = replacements.toLocaleTimeString as Date["toLocaleTimeString"];
  StringProto.toLocaleUpperCase = replacements.toLocaleUpperCase as String["toLocaleUpperCase"];
  StringProto.toLocaleLowerCase = replacements.toLocaleLowerCase as String["toLocaleLowerCase"];
  StringProto.localeCompare = replacements.localeCompare as String["localeCompare"];
  Number.prototype.toLocaleString = replacements.numberToLocaleString as Number["toLocaleString"];
  BigInt.prototype.toLocaleString = replacements.bigintToLocaleString as BigInt["toLocaleString"];
}
