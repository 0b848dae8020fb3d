/**
 * Results computed from a source text, kept for the texts seen last: a saved tool, and the libs it
 * pins, run again and again with the same text, and stripping TypeScript or parsing imports costs
 * up to a millisecond each time. Only small texts are kept, and only the most recent, so the memory
 * held stays bounded (entries × max chars) whatever users save.
 */
export interface TextMemo<T> {
  (text: string, compute: () => T): T;
}

export function createTextMemo<T>(options: { entries: number; maxChars: number }): TextMemo<T> {
  const kept = new Map<string, T>();
  return (text, compute) => {
    if (kept.has(text)) {
      const value = kept.get(text) as T;
      kept.delete(text); // most recently used last
      kept.set(text, value);
      return value;
    }
    const value = compute();
    if (text.length <= options.maxChars) {
      kept.set(text, value);
      if (kept.size > options.entries) kept.delete(kept.keys().next().value as string);
    }
    return value;
  };
}
