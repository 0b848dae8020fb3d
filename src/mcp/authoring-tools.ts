/**
 * Boot tools that let an assistant write sandboxed user tools and then call them: list, read, save
 * (create or update, answering lint diagnostics) and delete the caller's own tools. Gated by the
 * built-in `knot.tools.author` permission; saving and deleting also need a token that may write.
 * The catalog enforces the same rules again (owner only, validated input).
 */
import { describeUserTool } from "../tools/describe-tool.ts";
import { KnotError } from "../errors.ts";
import { BUILTIN_PERMISSIONS, type Principal } from "../identity/principal.ts";
import type { JsonSchemaObject } from "../plugins/manifest-types.ts";
import type { UserToolRecord } from "../store/store.ts";
import { callableName } from "../tools/tool-names.ts";
import type { UserToolsCatalog } from "../tools/user-tools.ts";
import { toolResult } from "./results.ts";
import { permissionRefusal, writeRefusal } from "./tool-gates.ts";
import type { BootTool, Refusal } from "./tool-types.ts";

const author = (principal: Principal): Refusal | null => permissionRefusal(principal, BUILTIN_PERMISSIONS.toolsAuthor);
const authorWrite = (principal: Principal): Refusal | null => author(principal) ?? writeRefusal(principal);
const json = (value: unknown) => toolResult({ kind: "json", value });

const ID_OR_NAME: JsonSchemaObject = {
  type: "object",
  properties: {
    id: { type: "string", description: "The tool's id (from list_user_tools)." },
    name: { type: "string", description: "Your tool's name, or a shared tool's owner-qualified name (owner__name)." },
  },
};

const SAVE_SCHEMA: JsonSchemaObject = {
  type: "object",
  properties: {
    id: { type: "string", description: "Id of your tool to update; without it, your tool of the same name is updated or a new one created." },
    name: { type: "string", description: "Tool name: letters, digits, _ or -." },
    description: { type: "string", description: "What the tool does, for assistants." },
    code: { type: "string", description: "JavaScript (or TypeScript) ES module; its default export (or main) takes one `request` argument. Use knot:tool getters and return* functions." },
    language: { type: "string", enum: ["js", "ts"] },
    kind: { type: "string", enum: ["tool", "lib"] },
    parameters: { type: "array", description: "Declared parameters: {name, type: string|int|float|bool|list|object, description, required, default, enum, secret, personal; an object has properties: [parameters], a list items: a type or {type, properties, …}}.", items: { type: "object" } },
    sharing: { type: "string", description: '"private", "everyone" or "@group".' },
    active: { type: "boolean" },
    readOnly: { type: "boolean" },
    destructive: { type: "boolean" },
    expectedVersion: { type: "integer", description: "Refuse the update if the tool changed meanwhile." },
  },
};

export function authoringTools(catalog: UserToolsCatalog): BootTool[] {
  const find = async (principal: Principal, args: Record<string, unknown>): Promise<UserToolRecord> => {
    if (typeof args.id === "string") return catalog.get(principal, args.id);
    if (typeof args.name !== "string") throw new KnotError("INVALID_ARGUMENT", "give the tool's id or name", { where: "id" });
    // The names tools/call uses: your own by name, others' only by their owner-qualified name.
    const all = await catalog.list(principal);
    const found = all.find((t) => callableName(principal.user.id, t) === args.name);
    if (found) return catalog.withCode(found);
    const shared = all.filter((t) => t.ownerId !== principal.user.id && t.name === args.name).map((t) => callableName(principal.user.id, t));
    if (shared.length > 0) throw new KnotError("AMBIGUOUS_TOOL_NAME", `"${args.name}" is not a tool of yours; name a shared one by its owner-qualified name: ${shared.join(", ")}`, { where: "name" });
    throw new KnotError("NOT_FOUND", `no tool named "${args.name}" is visible to you`);
  };
  return [
    {
      name: "list_user_tools", description: "List the user tools and libs you own or that are shared with you (without their code).",
      parameters: [], inputSchema: { type: "object", properties: {} }, readOnly: true, destructive: false, gate: author,
      run: async (ctx) => json({ tools: (await catalog.list(ctx.principal)).map((t) => describeUserTool(ctx.principal, t)) }),
    },
    {
      name: "get_user_tool", description: "Read one user tool or lib, with its code and parameters, by id or name.",
      parameters: [], inputSchema: ID_OR_NAME, readOnly: true, destructive: false, gate: author,
      run: async (ctx, args) => json({ tool: describeUserTool(ctx.principal, await find(ctx.principal, args), true) }),
    },
    {
      name: "save_user_tool",
      description: "Create or update one of your user tools (sandboxed JavaScript). Answers the saved tool and lint diagnostics (line, column, message); fix them and save again. A saved active tool can then be called by name.",
      parameters: [], inputSchema: SAVE_SCHEMA, readOnly: false, destructive: false, gate: authorWrite,
      async run(ctx, args) {
        const { id, ...body } = args;
        let existing: string | null = typeof id === "string" ? id : null;
        if (!existing && typeof body.name === "string") {
          existing = (await catalog.list(ctx.principal)).find((t) => t.name === body.name && t.ownerId === ctx.principal.user.id)?.id ?? null;
        }
        const saved = existing ? await catalog.update(ctx.principal, existing, body) : await catalog.create(ctx.principal, body);
        return json({ created: !existing, tool: describeUserTool(ctx.principal, saved.tool), diagnostics: saved.diagnostics });
      },
    },
    {
      name: "delete_user_tool", description: "Delete one of your user tools or libs (every saved version), by id or name.",
      parameters: [], inputSchema: ID_OR_NAME, readOnly: false, destructive: true, gate: authorWrite,
      async run(ctx, args) {
        const tool = await find(ctx.principal, args);
        await catalog.remove(ctx.principal, tool.id);
        return json({ deleted: tool.id, name: tool.name });
      },
    },
  ];
}

