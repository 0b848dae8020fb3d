import fs from "node:fs";

/** The runtime's version, checked against each plugin's `requires` range. */
export const RUNTIME_VERSION: string = (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
