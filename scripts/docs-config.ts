/** `npm run docs:config`: rewrites README.md's config key table from src/config.ts's declaration. */
import fs from "node:fs";
import { CONFIG_KEYS } from "../src/config.ts";
import { keyTable, withKeyTable } from "../src/config/key-table.ts";

const file = new URL("../README.md", import.meta.url);
const before = fs.readFileSync(file, "utf8");
const after = withKeyTable(before, keyTable(CONFIG_KEYS));
fs.writeFileSync(file, after);
console.log(before === after ? "README.md: config key table already up to date" : "README.md: config key table rewritten");
