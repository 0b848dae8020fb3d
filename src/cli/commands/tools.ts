import fs from "node:fs";
import path from "node:path";
import { KnotError } from "../../errors.ts";
import { openStore } from "../../store/index.ts";
import { pinLibs } from "../../tools/lib-pins.ts";
import { parseUserToolInput } from "../../tools/user-tool-input.ts";
import { COMMON_OPTIONS, parse, resolveConfig, usageError } from "../context.ts";

/**
 * `tools add FILE --user NAME [--name N] [--kind tool|lib] [--description D] [--share everyone|@group]`:
 * stores a file as the user's tool (a new version when the name exists). Local admin action.
 */
export async function toolsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...COMMON_OPTIONS, user: { type: "string" }, name: { type: "string" }, kind: { type: "string" },
    description: { type: "string" }, share: { type: "string" },
  });
  const [action, file] = positionals;
  if (action !== "add" || !file || !values.user) throw usageError("tools add FILE --user NAME [--name N] [--kind tool|lib] [--share everyone|@group]");
  let code: string;
  try {
    code = fs.readFileSync(file, "utf8");
  } catch {
    throw new KnotError("NOT_FOUND", `cannot read ${file}`);
  }
  const store = await openStore({ path: resolveConfig(values).database });
  try {
    const user = await store.getUserByName(values.user);
    if (!user) throw new KnotError("NOT_FOUND", `no user named "${values.user}"`);
    const name = values.name ?? path.basename(file).replace(/\.[^.]+$/, "");
    const existing = await store.findUserToolByName(user.id, name);
    const input = parseUserToolInput({
      name, code, language: file.endsWith(".ts") ? "ts" : "js",
      ...(values.kind !== undefined ? { kind: values.kind } : {}),
      ...(values.description !== undefined ? { description: values.description } : {}),
      ...(values.share !== undefined ? { sharing: values.share } : {}),
    }, existing ?? undefined);
    // Pin its lib: imports as the API does (names already pinned keep their pin).
    const { pins } = await pinLibs(store, { id: user.id, groups: await store.groupsOf(user.id) }, input.code, input.language, existing?.libPins ?? null);
    const pinned = { ...input, libPins: pins };
    const tool = existing ? await store.updateUserTool(existing.id, user.id, pinned) : await store.createUserTool(user.id, pinned);
    process.stdout.write(`${tool.id}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
