/**
 * The names of the boot tools (boot-tools.ts, authoring-tools.ts). They come first in every
 * caller's namespace, so a plugin MCP tool of one of these names would be shadowed for everyone:
 * the loader refuses it. test/mcp/boot-tool-names.test.ts keeps this list in step with the tools.
 */
export const BOOT_TOOL_NAMES: readonly string[] = ["tool_search", "execute_tool", "list_user_tools", "get_user_tool", "save_user_tool", "delete_user_tool"];
