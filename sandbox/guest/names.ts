/**
 * Why: the name grammars every side checks — users, groups, permissions and scopes, plugins,
 * module stems, tools and their owner-qualified names, import specifiers, event types — written
 * once. The manifest parser, the CLI, the HTTP and web routes, the MCP resolver's names, the
 * client-module builder, the plugin module hooks, the sandbox worker and the web UI all import
 * this file (the guest its call-target.ts part), so a name one side accepts is never refused (or,
 * worse, read differently) by another.
 *
 * Where: in sandbox/guest/ because `src/`, `client-modules/` and the worker may import guest files
 * (they need no Node API), never the reverse. The guest itself checks one name (a knot:plugin
 * call's target) with call-target.ts, re-exported here: the bundle evaluates what it imports in
 * every context, and it needs none of the other grammars.
 * Pure data: regular expressions, no Node API. Guest code tests them through captured intrinsics
 * (`I.RegExpExec`), host code with `.test`.
 * The table test is test/name-grammars.test.ts; docs/plugins.md and docs/user-tools.md quote them.
 */
import { PLUGIN, whole } from "./call-target.ts";

export { callTargetProblem, HANDLER_NAME_FORBIDDEN, PLUGIN_NAME } from "./call-target.ts";

const USER = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";
const GROUP = "[a-z0-9][a-z0-9_-]{0,63}";
const IDENT = "[A-Za-z_][A-Za-z0-9_]*";
const TOOL = "[A-Za-z0-9][A-Za-z0-9_-]*";
const PERMISSION_PATH = "[a-z0-9_]+(?:\\.[a-z0-9_-]+)*";

/** A user's name: 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
export const USER_NAME = whole(USER);
/** A group's name: 1–64 lower-case letters, digits, `_` or `-`, starting with a letter or digit. */
export const GROUP_NAME = whole(GROUP);
/** A tool's sharing with one group: `@<group>`. */
export const GROUP_SHARING = whole(`@${GROUP}`);
/** A granted permission: dotted lower-case segments, e.g. `plugin.demo.view_dashboard`, `knot.mcp`. */
export const PERMISSION = whole(PERMISSION_PATH);
/** A permission as a plugin declares it, before `plugin.<name>.` is put in front. */
export const PERMISSION_ID = /^[a-z0-9_]+$/;
/** A token scope: `*`, a permission, or a permission prefix ending in `.*` (`plugin.metrics.*`). */
export const SCOPE = whole(`\\*|${PERMISSION_PATH}(?:\\.\\*)?`);
/** An identifier: a module stem (`plugin:<name>/<stem>`), a peer function, a parameter or config key. */
export const IDENTIFIER = whole(IDENT);
/** A tool's own name (user tools and plugin MCP tools): letters, digits, `_` and `-`, at most TOOL_NAME_MAX. */
export const TOOL_NAME = whole(TOOL);
export const TOOL_NAME_MAX = 64;
/** Separates owner and name in a shared tool's or lib's name (`alice__weekly_report`); new tool names may not hold it. */
export const OWNER_SEPARATOR = "__";
/** `plugin:<name>` or `plugin:<name>/<stem>`; groups: the plugin, the stem. */
export const PLUGIN_SPECIFIER = new RegExp(`^plugin:(${PLUGIN})(?:/(${IDENT}))?$`);
/** `lib:<name>`: the lib's own name, or `<owner>__<name>` when another user shares it; group: the name. */
export const LIB_SPECIFIER = new RegExp(`^lib:((?:${USER}${OWNER_SEPARATOR})?${TOOL})$`);
/** A dependency as a plugin declares it: a plugin name, then an optional semver range; groups: the name, the range. */
export const PLUGIN_DEPENDENCY = new RegExp(`^(${PLUGIN})\\s*(.*)$`);
/** An event type a plugin declares, before `plugin.<name>.` is put in front. */
export const EVENT_TYPE_ID = /^[a-z][a-z0-9_]*$/;
/** An event type a sink subscribes to (`tool.saved`, `plugin.metrics.exported`), at most 128 characters. */
export const EVENT_TYPE = /^[a-z][a-z0-9_.-]{0,127}$/;
/** A plugin event's type; group: the plugin. */
export const PLUGIN_EVENT_TYPE = new RegExp(`^plugin\\.(${PLUGIN})\\.`);
