/** How a resolved tool is shown in `tools/list`: schema from its declared parameters, annotations from its flags. */
import type { ToolRunner } from "../tools/tool-runner.ts";
import type { McpTool } from "./sdk.ts";
import type { CandidateTool } from "./tool-types.ts";

export function toMcpTool(tool: CandidateTool, runner: ToolRunner): McpTool {
  switch (tool.kind) {
    case "boot": {
      const { boot } = tool;
      return shape(boot.name, boot.description, boot.inputSchema, boot.readOnly, boot.destructive);
    }
    case "user": {
      const { user } = tool;
      const description = user.description.trim() || `User tool "${user.name}".`;
      return shape(tool.name, description, runner.schemaOf(user), user.readOnly === true, user.destructive === true);
    }
    case "plugin": {
      const { decl } = tool.plugin;
      return shape(decl.name, decl.description, decl.inputSchema, decl.readOnly, decl.destructive);
    }
  }
}

function shape(name: string, description: string, inputSchema: object, readOnly: boolean, destructive: boolean): McpTool {
  return {
    name, description,
    inputSchema: inputSchema as McpTool["inputSchema"],
    annotations: { readOnlyHint: readOnly, destructiveHint: destructive },
  };
}
