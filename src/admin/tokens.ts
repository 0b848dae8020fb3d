/** API tokens, for the web admin, the CLI and the first start (see admin.ts). The secret is shown once; only its hash is stored. */
import { SCOPE } from "../../sandbox/guest/names.ts";
import { hashSecret, mintSecret } from "../auth/secrets.ts";
import { KnotError } from "../errors.ts";
import type { TokenRecord, TokenScopes } from "../store/store.ts";
import type { AdminActor, AdminDeps } from "./admin.ts";

const API_TOKEN_PREFIX = "kt_";
/** What sign-in sessions' tokens are named (web/session-routes.ts mints them): no API token takes or leaves the name. */
export const SESSION_TOKEN_NAME = "web session";

/** The longest lifetime a token may be given when it has one (API and CLI alike); none means it does not expire. */
export const MAX_TOKEN_LIFETIME_DAYS = 3650;

export interface NewToken {
  readonly userId: string;
  /** Checked here: 1–100 characters once trimmed, not the sessions' name. */
  readonly name: unknown;
  readonly scopes: TokenScopes | null;
  readonly expiresAt: string | null;
}

export interface TokenAdmin {
  create(input: NewToken): Promise<{ token: TokenRecord; secret: string }>;
  rename(token: TokenRecord, name: unknown): Promise<void>;
  /** False when it was revoked already; its OAuth grant and open sessions go with it either way. An OAuth connection's revocation is audited. */
  revoke(token: TokenRecord, by: AdminActor): Promise<boolean>;
  /** On an empty database: the user `admin` and its token's secret; null when there are users (another instance may have just made them). */
  bootstrap(): Promise<string | null>;
}

/** The most a token's name may hold (API, CLI and OAuth connections alike). */
const MAX_TOKEN_NAME = 100;
/**
 * Bounds on a token's scope list: every check walks it (once per tool when listing), so a list of
 * 50,000 made each of its holder's requests stall the server (eighth round).
 */
const MAX_TOKEN_SCOPES = 64;
const MAX_SCOPE_LENGTH = 200;

/**
 * An OAuth connection's token name from the name its client registered (open registration: any
 * length, any text): what the token rules allow, cut to length and never the session name.
 */
export function connectionTokenName(clientName: string): string {
  const name = clientName.trim().slice(0, MAX_TOKEN_NAME).trim() || "OAuth client";
  return name === SESSION_TOKEN_NAME ? `${name} (OAuth client)` : name;
}

function parseTokenName(value: unknown): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length < 1 || name.length > MAX_TOKEN_NAME) throw new KnotError("INVALID_ARGUMENT", `name must be 1–${MAX_TOKEN_NAME} characters`, { where: "name" });
  if (name === SESSION_TOKEN_NAME) throw new KnotError("INVALID_ARGUMENT", `"${SESSION_TOKEN_NAME}" is reserved for sign-in sessions`, { where: "name" });
  return name;
}

/**
 * A token's scopes from a list of permission ids or globs (null: all of the user's authority) and
 * whether it may change things. A read-only token without a list gets `*` read-only.
 */
export function tokenScopes(permissions: readonly string[] | null, write: boolean): TokenScopes | null {
  if (permissions === null) return write ? null : { permissions: ["*"], write: false };
  if (permissions.length > MAX_TOKEN_SCOPES) {
    throw new KnotError("INVALID_ARGUMENT", `a token has at most ${MAX_TOKEN_SCOPES} scopes (got ${permissions.length}); use globs such as plugin.metrics.* to cover more`, { where: "scopes" });
  }
  const listed = permissions.map((s) => s.trim()).filter(Boolean);
  const bad = listed.find((p) => p.length > MAX_SCOPE_LENGTH || !SCOPE.test(p));
  if (bad !== undefined) throw new KnotError("INVALID_ARGUMENT", `scope "${bad}" is not a permission id or glob (e.g. plugin.metrics.*)`, { where: "scopes" });
  return { permissions: [...new Set(listed)], write };
}

export function createTokenAdmin({ store, tokenRevoked, audit }: AdminDeps): TokenAdmin {
  const create = async (input: NewToken) => {
    const name = parseTokenName(input.name);
    const secret = mintSecret(API_TOKEN_PREFIX);
    const token = await store.createToken({ ...input, name, secretHash: hashSecret(secret) });
    return { token, secret };
  };
  return {
    create,
    async rename(token, value) {
      if (token.name === SESSION_TOKEN_NAME) throw new KnotError("INVALID_ARGUMENT", `"${SESSION_TOKEN_NAME}" tokens cannot be renamed`, { where: "name" });
      await store.renameToken(token.id, parseTokenName(value));
    },
    async revoke(token, by) {
      const revoked = await store.revokeToken(token.id);
      await tokenRevoked(token);
      if (token.connection) {
        await audit.record({
          principal: by.principal, surface: by.surface, tool: "oauth.revoke", args: { clientId: token.connection.clientId, connectionId: token.id },
          outcome: revoked ? "ok" : "ALREADY_REVOKED", durationMs: 0, requestId: by.requestId,
        });
      }
      return revoked;
    },
    async bootstrap() {
      // The user and its token in one write: no admin without a token, and one admin however many instances start at once.
      const secret = mintSecret(API_TOKEN_PREFIX);
      return (await store.bootstrapAdmin({ name: "admin", tokenName: "bootstrap", secretHash: hashSecret(secret) })) ? secret : null;
    },
  };
}
