/** The validated, qualified form of a plugin's `// /// script` metadata block (docs/plugins.md "The metadata block"). */
import type { HeaderParam } from "../validation/mcp-param-headers.ts";

export type ParameterType = "string" | "int" | "float" | "bool" | "list" | "object";

/** What a value is: a parameter's shape, also a list's `items` (which has no name). */
export interface ParameterShape {
  readonly type: ParameterType;
  readonly description: string;
  readonly enum?: readonly unknown[];
  /** Masked in the audit log (003: keys, passwords). */
  readonly secret: boolean;
  /** Masked in the audit log (003: someone's details). */
  readonly personal: boolean;
  /** `type = "object"`: its members, each a parameter; absent = any object. */
  readonly properties?: readonly ParameterDecl[];
  /** `type = "list"`: what each element is; absent = any JSON value. */
  readonly items?: ParameterShape;
}

export interface ParameterDecl extends ParameterShape {
  readonly name: string;
  readonly required: boolean;
  readonly default?: unknown;
}

export interface HandlerDecl {
  /** A named export of main.js. */
  readonly handler: string;
  /** Qualified permission id (`plugin.<name>.<id>`), or null for ungated. */
  readonly permission: string | null;
  /** Changes something (`write = true`, implied by `destructive`): refused to read-only tokens. */
  readonly write: boolean;
  readonly destructive: boolean;
  /** `area = "…"`: a grouping for the consent screen and `GET /api/plugins` (null: none). */
  readonly area: string | null;
  readonly line: number;
}

export interface McpToolDecl {
  readonly name: string;
  readonly description: string;
  readonly handler: string;
  readonly permission: string | null;
  readonly parameters: readonly ParameterDecl[];
  readonly readOnly: boolean;
  readonly destructive: boolean;
  /** Changes something (003 `write`); implied by `destructive`. */
  readonly write: boolean;
  /** JSON Schema built from `parameters`, or the raw `input_schema`: exactly as an MCP client receives it. */
  readonly inputSchema: JsonSchemaObject;
  /** Arguments the schema mirrors in `Mcp-Param-*` headers (`x-mcp-header`, 2026-07-28); checked on each call. */
  readonly headerParams: readonly HeaderParam[];
  /** Its own `area`, else its handler's (null: none). */
  readonly area: string | null;
  readonly line: number;
}

export interface PageDecl {
  readonly path: string;
  readonly handler: string;
  readonly label: string;
  readonly permission: string | null;
  readonly line: number;
  /** The page the plugin's menu opens on (at most one page says `default = true`). */
  readonly default?: boolean;
  /** Shorter text for the navigation than `label`. */
  readonly menuLabel?: string;
  /** One of the plugin's declared `icons`. */
  readonly icon?: string;
}

/** `[[tool.knot.menus]]`: a navigation link, shown to users who pass its gate. */
export interface MenuDecl {
  readonly label: string;
  /** `/…` inside this server, or an absolute http(s) URL. */
  readonly url: string;
  readonly permission: string | null;
  readonly icon: string | null;
  readonly line: number;
}

/** `[[tool.knot.field_handlers]]`: a declared handler offered as a field helper in the UI. */
export interface FieldHandlerDecl {
  readonly label: string;
  readonly handler: string;
  readonly permission: string | null;
  readonly line: number;
}

/** `dependencies = ["other>=1.2"]`: another plugin that must be loaded, in a semver range. */
export interface DependencyDecl {
  readonly plugin: string;
  /** Semver range; `*` when only the name is given. */
  readonly range: string;
  readonly line: number;
}

export interface EventDecl {
  /** Qualified: `plugin.<name>.<type>`. */
  readonly type: string;
  readonly description: string;
  /** Qualified permission a sink's owner needs to receive it; null = any sink owner. */
  readonly permission: string | null;
  readonly line: number;
}

export interface ExportDecl {
  /** File name relative to the plugin folder, e.g. `client.js`. */
  readonly file: string;
  /** Module stem, e.g. `client`: importable as `plugin:<name>/<stem>`. */
  readonly stem: string;
}

export interface PluginManifest {
  readonly name: string;
  readonly api: number;
  readonly version: string;
  readonly description: string;
  /** Semver range the runtime must satisfy (`requires-runtime` or `[tool.knot] requires`). */
  readonly requires: string | null;
  /** Qualified ids, e.g. `plugin.metrics.export`. */
  readonly permissions: readonly string[];
  readonly handlers: readonly HandlerDecl[];
  readonly mcpTools: readonly McpToolDecl[];
  readonly pages: readonly PageDecl[];
  readonly exports: readonly ExportDecl[];
  /** Keys the plugin requires from the server config's `[plugins.<name>]` table. */
  readonly config: readonly string[];
  /** `[[tool.knot.events]]`: event types the plugin may emit. */
  readonly events: readonly EventDecl[];
  readonly menus: readonly MenuDecl[];
  /** Relative `.svg` paths in the plugin folder, sanitised at load and served to signed-in users. */
  readonly icons: readonly string[];
  readonly logoLight: string | null;
  readonly logoDark: string | null;
  readonly fieldHandlers: readonly FieldHandlerDecl[];
  readonly dependencies: readonly DependencyDecl[];
}

export interface JsonSchemaObject {
  readonly type: "object";
  /** Always present in schemas built from parameters; a raw `input_schema` may leave it out. */
  readonly properties: Record<string, Record<string, unknown>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
}
