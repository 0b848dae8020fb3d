/**
 * The code of listed tools. Listings carry no code (UserToolSummary): a run loads the code of the
 * one tool it runs, by id and version from the tool's history, which never changes, so what runs
 * is exactly the version the listing showed (a save meanwhile makes a new version; a delete takes
 * the history with it: NOT_FOUND). Recently run code is kept once for every user, bounded in
 * characters, instead of once per user in every listing.
 */
import { KnotError } from "../errors.ts";
import type { Store, UserToolRecord, UserToolSummary } from "../store/store.ts";

/** Code kept at most, in characters (a tool holds at most 256 KB). */
const MAX_KEPT_CHARS = 32 * 1024 * 1024;

export function createToolSources(store: Store): { withCode(tool: UserToolSummary): Promise<UserToolRecord> } {
  const kept = new Map<string, string>();
  let keptChars = 0;

  const keep = (key: string, code: string) => {
    kept.set(key, code);
    keptChars += code.length;
    for (const [oldest, value] of kept) {
      if (keptChars <= MAX_KEPT_CHARS) break;
      kept.delete(oldest);
      keptChars -= value.length;
    }
  };

  const load = async (tool: UserToolSummary): Promise<string> => {
    const saved = await store.getUserToolVersion(tool.id, tool.version);
    if (saved) return saved.tool.code;
    const current = await store.getUserTool(tool.id);
    if (current?.version === tool.version) return current.code;
    throw new KnotError("NOT_FOUND", `the tool "${tool.name}" was changed or deleted meanwhile: list the tools again`);
  };

  return {
    async withCode(tool) {
      const key = `${tool.id}@${tool.version}`;
      let code = kept.get(key);
      if (code === undefined) {
        code = await load(tool);
        keep(key, code);
      } else {
        kept.delete(key); // most recently used last
        kept.set(key, code);
      }
      return Object.freeze({ ...tool, code });
    },
  };
}
