import { tokenScopes } from "../../admin/tokens.ts";
import { tokenState } from "../../auth/authenticate.ts";
import { KnotError } from "../../errors.ts";
import { withAdmin } from "../admin-context.ts";
import { COMMON_OPTIONS, expiryFrom, parse, usageError } from "../context.ts";

export async function tokensCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, name: { type: "string" }, scopes: { type: "string" }, expires: { type: "string" }, "no-write": { type: "boolean" } });
  const [action, subject] = positionals;
  if (action !== "create" && action !== "list" && action !== "revoke") throw usageError("tokens: expected create, list or revoke");
  if (action === "create" && !subject) throw usageError("tokens create USER [--name N] [--scopes a,b] [--no-write] [--expires 30d]");
  if (action === "revoke" && !subject) throw usageError("tokens revoke ID");
  return withAdmin(values, async ({ admin, store }) => {
    if (action === "create") {
      const user = await admin.users.named(subject!);
      const scopes = tokenScopes(values.scopes === undefined ? null : values.scopes.split(","), values["no-write"] !== true);
      const { secret } = await admin.tokens.create({ userId: user.id, name: values.name ?? "cli", scopes, expiresAt: values.expires ? expiryFrom(values.expires) : null });
      process.stdout.write(`${secret}\n`);
      return 0;
    }
    if (action === "list") {
      const user = subject ? await admin.users.named(subject) : null;
      for (const t of await store.listTokens(user?.id)) {
        process.stdout.write(`${t.id}\t${t.name}\t${tokenState(t)}\t${t.scopes ? t.scopes.permissions.join(",") + (t.scopes.write ? "" : " (read-only)") : "*"}\n`);
      }
      return 0;
    }
    const token = await store.getToken(subject!);
    if (!token || !(await admin.tokens.revoke(token, { principal: null, surface: "cli", requestId: null }))) throw new KnotError("NOT_FOUND", `no token with id "${subject}"`);
    return 0;
  });
}
