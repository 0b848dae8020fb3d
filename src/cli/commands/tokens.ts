import { hashSecret, mintSecret } from "../../auth/secrets.ts";
import { KnotError } from "../../errors.ts";
import { tokenState } from "../../auth/authenticate.ts";
import { SCOPE_PATTERN } from "../../identity/scopes.ts";
import { openStore } from "../../store/index.ts";
import type { TokenScopes } from "../../store/store.ts";
import { COMMON_OPTIONS, expiryFrom, parse, resolveConfig, usageError } from "../context.ts";

export const API_TOKEN_PREFIX = "kt_";

export function parseScopes(text: string | undefined, noWrite: boolean): TokenScopes | null {
  if (text === undefined && !noWrite) return null;
  const permissions = (text ?? "*").split(",").map((s) => s.trim()).filter(Boolean);
  const bad = permissions.find((p) => !SCOPE_PATTERN.test(p));
  if (bad) throw usageError(`scope "${bad}" is not a permission id or glob (e.g. plugin.metrics.*)`);
  return { permissions, write: !noWrite };
}

export async function tokensCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, name: { type: "string" }, scopes: { type: "string" }, expires: { type: "string" }, "no-write": { type: "boolean" } });
  const [action, subject] = positionals;
  const store = await openStore({ path: resolveConfig(values).database });
  try {
    if (action === "create") {
      if (!subject) throw usageError("tokens create USER [--name N] [--scopes a,b] [--no-write] [--expires 30d]");
      const user = await store.getUserByName(subject);
      if (!user) throw new KnotError("NOT_FOUND", `no user named "${subject}"`);
      const secret = mintSecret(API_TOKEN_PREFIX);
      await store.createToken({
        userId: user.id, name: values.name ?? "cli", secretHash: hashSecret(secret),
        scopes: parseScopes(values.scopes, values["no-write"] === true), expiresAt: values.expires ? expiryFrom(values.expires) : null,
      });
      process.stdout.write(`${secret}\n`);
      return 0;
    }
    if (action === "list") {
      const user = subject ? await store.getUserByName(subject) : null;
      if (subject && !user) throw new KnotError("NOT_FOUND", `no user named "${subject}"`);
      for (const t of await store.listTokens(user?.id)) {
        const state = tokenState(t);
        process.stdout.write(`${t.id}\t${t.name}\t${state}\t${t.scopes ? t.scopes.permissions.join(",") + (t.scopes.write ? "" : " (read-only)") : "*"}\n`);
      }
      return 0;
    }
    if (action === "revoke") {
      if (!subject) throw usageError("tokens revoke ID");
      if (!(await store.revokeToken(subject))) throw new KnotError("NOT_FOUND", `no token with id "${subject}"`);
      // A connection's OAuth grant goes with it: its refresh tokens stop working too.
      const grantId = (await store.getToken(subject))?.connection?.grantId;
      if (grantId) await store.revokeOAuthGrant(grantId);
      return 0;
    }
    throw usageError("tokens: expected create, list or revoke");
  } finally {
    await store.close();
  }
}
