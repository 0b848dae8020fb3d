/**
 * Values read from the store, each kept only while the store's change mark (Store.changeMark) is
 * what it was before the value was read: any write to the store here, or a commit by another
 * process (the CLI), makes every entry stale for the next request at once. Without a change mark
 * (PostgreSQL) nothing is kept. Null (nothing found) is never kept. Past `max` entries it starts over.
 */
export function createMarkCache<V>(changeMark: (() => string) | undefined, max: number): (key: string, load: () => Promise<V | null>) => Promise<V | null> {
  const entries = new Map<string, { mark: string; value: V }>();
  return async function cached(key, load) {
    const mark = changeMark?.();
    if (mark === undefined) return load();
    const hit = entries.get(key);
    if (hit?.mark === mark) return hit.value;
    const value = await load();
    if (value === null) return null;
    if (entries.size >= max) entries.clear();
    entries.set(key, { mark, value });
    return value;
  };
}
