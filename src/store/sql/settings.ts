/**
 * Instance settings: small named values shared by every instance on the database. First writer
 * wins: when two instances create a value at once, both end up with the one that was stored.
 */
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";

export function createSettingMethods({ client }: StoreContext): Pick<Store, "getOrCreateSetting"> {
  async function read(name: string): Promise<string | undefined> {
    const [row] = (await client.query("SELECT value FROM settings WHERE name = ?", [name])).rows;
    return row === undefined ? undefined : String(row.value);
  }

  return {
    async getOrCreateSetting(name, create) {
      const existing = await read(name);
      if (existing !== undefined) return existing;
      await client.query("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", [name, create()]);
      // Whoever inserted first, this reads the stored value (rows are never deleted).
      const stored = await read(name);
      if (stored === undefined) throw new Error(`setting ${name} vanished right after it was written`);
      return stored;
    },
  };
}
