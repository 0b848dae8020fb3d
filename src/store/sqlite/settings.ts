/** Instance settings: small named values shared by every instance on the database. */
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";

export function createSettingMethods({ db }: StoreContext): Pick<Store, "getOrCreateSetting"> {
  return {
    async getOrCreateSetting(name, create) {
      return db.transaction(() => {
        const row = db.get("SELECT value FROM settings WHERE name = ?", name);
        if (row) return String(row.value);
        const value = create();
        db.run("INSERT INTO settings (name, value) VALUES (?, ?)", name, value);
        return value;
      });
    },
  };
}
