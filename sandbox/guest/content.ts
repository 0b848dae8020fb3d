/**
 * Checks the blocks given to knot:tool returnContent() and copies only the known fields, so the
 * result is plain data of the MCP content shapes: text, image, audio, resource. A wrong shape
 * throws a TypeError naming the block and the field. (The worker checks the same shapes again.)
 */
import * as I from "./intrinsics.ts";
import { defineData } from "./intrinsics.ts";

type Block = Record<string, unknown>;
/** Base64 as the MCP SDK's check (atob) takes it, less whitespace: whole quads, then 2 or 3 characters with their padding optional. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

function field(block: Block, name: string, where: string, optional = false): string | undefined {
  const value = I.ObjectHasOwn(block, name) ? block[name] : undefined;
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string") throw new I.TypeError(`returnContent: ${where}.${name} must be a string`);
  return value;
}

function base64(block: Block, name: string, where: string, optional = false): string | undefined {
  const value = field(block, name, where, optional);
  if (value !== undefined && I.RegExpExec(BASE64, value) === null) {
    throw new I.TypeError(`returnContent: ${where}.${name} must be base64`);
  }
  return value;
}

function copyBlock(block: unknown, where: string): Block {
  if (typeof block !== "object" || block === null || I.ArrayIsArray(block)) {
    throw new I.TypeError(`returnContent: ${where} must be an object`);
  }
  const source = block as Block;
  const type = field(source, "type", where);
  switch (type) {
    case "text":
      return { type, text: field(source, "text", where) };
    case "image":
    case "audio":
      return { type, data: base64(source, "data", where), mimeType: field(source, "mimeType", where) };
    case "resource": {
      const resource = I.ObjectHasOwn(source, "resource") ? source.resource : undefined;
      if (typeof resource !== "object" || resource === null) {
        throw new I.TypeError(`returnContent: ${where}.resource must be an object`);
      }
      const inner = resource as Block;
      const here = `${where}.resource`;
      const copy: Block = { uri: field(inner, "uri", here) };
      const mimeType = field(inner, "mimeType", here, true);
      const text = field(inner, "text", here, true);
      const blob = base64(inner, "blob", here, true);
      if (mimeType !== undefined) defineData(copy, "mimeType", mimeType);
      if (text !== undefined) defineData(copy, "text", text);
      if (blob !== undefined) defineData(copy, "blob", blob);
      return { type, resource: copy };
    }
    default:
      throw new I.TypeError(`returnContent: ${where}.type must be "text", "image", "audio" or "resource"`);
  }
}

export function copyContent(blocks: unknown): Block[] {
  if (!I.ArrayIsArray(blocks)) throw new I.TypeError("returnContent: blocks must be an array");
  const list = blocks as readonly unknown[];
  const copy: Block[] = [];
  for (let index = 0; index < list.length; index += 1) I.ArrayPush(copy, copyBlock(list[index], `blocks[${index}]`));
  return copy;
}
