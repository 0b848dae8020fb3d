/**
 * How people and assistants name user tools and libs made by someone else. Threat: a name that
 * silently starts meaning another author's code (a rename, a delete-and-recreate, a new share, a
 * group change). Rule: your own tools and libs go by their bare name; one shared with you goes by
 * its owner-qualified name `<owner>__<name>`, which only that owner can ever fill. `__` is the
 * separator because MCP clients and model APIs accept only `[A-Za-z0-9_-]` reliably (SEP-986 also
 * allows `.`, `/` is not allowed), and tool names may not contain `__`, so a qualified name never
 * splits two ways.
 */
import { OWNER_SEPARATOR } from "../../sandbox/guest/names.ts";
import type { UserToolRecord } from "../store/store.ts";

export function qualifiedName(ownerName: string, name: string): string {
  return `${ownerName}${OWNER_SEPARATOR}${name}`;
}

/** The name `callerId` lists and calls this tool (or imports this lib) by. */
export function callableName(callerId: string, tool: Pick<UserToolRecord, "ownerId" | "ownerName" | "name">): string {
  return tool.ownerId === callerId ? tool.name : qualifiedName(tool.ownerName, tool.name);
}
