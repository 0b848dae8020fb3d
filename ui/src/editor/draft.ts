/** What the editor edits of a tool (its draft), and how a saved tool becomes one. */
import type { Tool } from "../lib/api.ts";

export type Draft = Pick<Tool, "name" | "description" | "language" | "parameters" | "sharing" | "active" | "readOnly" | "destructive" | "events"> & { code: string };

export const draftOf = (tool: Tool): Draft => ({
  name: tool.name, description: tool.description, language: tool.language, parameters: tool.parameters, code: tool.code ?? "",
  sharing: tool.sharing, active: tool.active, readOnly: tool.readOnly === true, destructive: tool.destructive === true,
  ...(tool.kind === "sink" ? { events: tool.events ?? [] } : {}),
});

export const same = (a: Draft, b: Draft) => JSON.stringify(a) === JSON.stringify(b);
