/** API tokens, for the web admin, the CLI and the first start (see admin.ts). The secret is shown once; only its hash is stored. */
import { SCOPE } from "../../sandbox/guest/names.ts";
import { hashSecret, mintSecret } from "../auth/secrets.ts";
import { KnotError } from "../errors.ts";
import type { TokenRecord, TokenScopes } from "../store/store.ts";
import type { AdminDeps } from "./admin.ts";

export const API_TOKEN_PREFIX = "kt_";

export interface NewToken {
  readonly userId: string;
  readonly name: string;
  readonly scopes: TokenScopes | null;
  readonly expiresAt: string | null;
}

export interface TokenAdmin {
  create(input: NewToken): Promise<{ token: TokenRecord; secret: string }>;
  /** False when it was revoked already; its OAuth grant and open sessions go with it either way. */
  revoke(token: TokenRecord): Promise<boolean>;
  /** On an empty database: the user `admin` and its token's secret; null when there are users. */
  bootstrap(): Promise<string | null>;
}

/**
 * A token's scopes from a list of permission ids or globs (null: all of the user's authority) and
 * whether it may change things. A read-only token without a list gets `*` read-only.
 */
export function tokenScopes(permissions: readonly string[] | null, write: boolean): TokenScopes | null {
  if (permissions === null) return write ? null : { permissions: ["*"], write: false };
  const listed = permissions.map((s) => s.trim()).filter(Boolean);
  const bad = listed.find((p) => !SCOPE.test(p));
  if (bad !== undefined) throw new KnotError("INVALID_ARGUMENT", `scope "${bad}" is not a permission id or glob (e.g. plugin.metrics.*)`, { where: "scopes" });
  return { permissions: [...new Set(listed)], write };
}

export function createTokenAdmin({ store, tokenRevoked }: AdminDeps): TokenAdmin {
  const create = async (input: NewToken) => {
    const secret = mintSecret(API_TOKEN_PREFIX);
    const token = await store.createToken({ ...input, secretHash: hashSecret(secret) });
    return { token, secret };
  };
  return {
    create,
    async revoke(token) {
      const revoked = await store.revokeToken(token.id);
      await tokenRevoked(token);
      return revoked;
    },
    async bootstrap() {
      if ((await store.countUsers()) > 0) return null;
      const admin = await store.createUser({ name: "admin", isAdmin: true });
      return (await create({ userId: admin.id, name: "bootstrap", scopes: null, expiresAt: null })).secret;
    },
  };
}
