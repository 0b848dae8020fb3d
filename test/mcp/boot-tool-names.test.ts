import assert from "node:assert/strict";
import { it } from "node:test";
import { BOOT_TOOL_NAMES } from "../../src/mcp/boot-tool-names.ts";
import { createBootTools, type BootToolHost } from "../../src/mcp/boot-tools.ts";
import type { UserToolsCatalog } from "../../src/tools/user-tools.ts";

it("the names the loader refuses to plugin MCP tools are exactly the boot tools' names", () => {
  // Building the tools touches neither the catalog nor the host; only their names are read.
  const tools = createBootTools({} as UserToolsCatalog, () => ({}) as BootToolHost);
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...BOOT_TOOL_NAMES].sort());
});
