/**
 * Results computed from a source text, kept for the texts seen last: a saved tool, and the libs it
 * pins, run again and again with the same text, and stripping TypeScript or parsing imports costs
 * up to a millisecond per KB each time, on the server's thread. Only texts up to `maxChars` are
 * kept, only the most recent, and at most `maxTotalChars` of text in all, so the memory held stays
 * bounded whatever users save.
 */
export interface TextMemo<T> {
  (text: string, compute: () => T): T;
}

export interface TextMemoOptions {
  readonly entries: number;
  readonly maxChars: number;
  /** Characters of the kept texts together (default: entries × maxChars). */
  readonly maxTotalChars?: number;
}

/**
 * The memos of saved sources: any source within the 256 KB save limit is kept (a bigger bound only
 * for small texts let a user make every run of theirs parse a big lib again, on the server's
 * thread); the memory held is the 16 Mi characters that 256 texts of 64 KiB always could be.
 */
export const SOURCE_MEMO: TextMemoOptions = Object.freeze({ entries: 256, maxChars: 262_144, maxTotalChars: 16_777_216 });

export function createTextMemo<T>(options: TextMemoOptions): TextMemo<T> {
  const kept = new Map<string, T>();
  const maxTotalChars = options.maxTotalChars ?? options.entries * options.maxChars;
  let totalChars = 0;
  const dropOldest = (): void => {
    const oldest = kept.keys().next().value as string;
    kept.delete(oldest);
    totalChars -= oldest.length;
  };
  return (text, compute) => {
    if (kept.has(text)) {
      const value = kept.get(text) as T;
      kept.delete(text); // most recently used last
      kept.set(text, value);
      return value;
    }
    const value = compute();
    if (text.length <= options.maxChars && text.length <= maxTotalChars) {
      kept.set(text, value);
      totalChars += text.length;
      while (kept.size > options.entries || totalChars > maxTotalChars) dropOldest();
    }
    return value;
  };
}
