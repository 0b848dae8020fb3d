/**
 * Why: V8 reserves and commits a resizable ArrayBuffer's memory itself, past the allocator that the
 * isolate's heap limit counts (a probe held 320 MB in resizable buffers under a 64 MB limit, and the
 * worker's memory budget then stopped a neighbour's run, not the hoarder's). So the global
 * ArrayBuffer is replaced by one that never hands its options to V8: every buffer a tool makes has
 * a fixed length, allocated where the limit sees it. Everything else reads as the language says:
 * the same prototype (its `constructor` is this one), `isView`, `Symbol.species`, subclassing.
 * `maxByteLength` is read once, so a getter cannot answer the check one thing and V8 another.
 */
import * as I from "./intrinsics.ts";

export function fixArrayBufferLengths(): void {
  const Real = globalThis.ArrayBuffer;
  const construct = Reflect.construct;
  const getOwnDescriptors = Object.getOwnPropertyDescriptors;
  const fixed = function ArrayBuffer(length: number) {
    if (new.target === undefined) throw new I.TypeError("Constructor ArrayBuffer requires 'new'");
    // Read from `arguments`: a second parameter would make `ArrayBuffer.length` 2 (it is 1).
    const options: unknown = arguments[1];
    if (typeof options === "object" && options !== null && (options as { maxByteLength?: unknown }).maxByteLength !== undefined) {
      throw new I.RangeError("resizable ArrayBuffers are not available in the sandbox (their memory escapes the heap limit): make a buffer of the length you need");
    }
    return construct(Real, [length], new.target) as ArrayBuffer;
  };
  const statics = getOwnDescriptors(Real) as Record<PropertyKey, PropertyDescriptor>;
  for (const key of Reflect.ownKeys(statics)) {
    if (key === "length" || key === "name") continue;
    I.ObjectDefineProperty(fixed, key, statics[key as string]!);
  }
  I.ObjectDefineProperty(Real.prototype, "constructor", { value: fixed, writable: true, enumerable: false, configurable: true });
  I.ObjectDefineProperty(globalThis, "ArrayBuffer", { value: fixed, writable: true, enumerable: false, configurable: true });
}
