/**
 * A token's last_used_at is refreshed at most once a minute per token, and the refresh is a write
 * nobody caches a read of: it must not move the store's change mark. Otherwise every token's first
 * request each minute emptied every cache in front of the store (token principals, tool lists) and
 * made every MCP session's list watch recompare its list: with many active tokens, the caches were
 * empty most of the time.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createAuthenticator } from "../../src/auth/authenticate.ts";
import { createLoopbackTokens } from "../../src/auth/loopback-tokens.ts";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/fixtures.ts";

async function withTokenStore(body: (store: Store, secret: string, tokenId: string, calls: Map<string, number>, path: string) => Promise<void>): Promise<void> {
  const path = join(tempDir(), "knot.db");
  const real = await createSqliteStore({ path });
  const calls = new Map<string, number>();
  // Counts the reads and touches the authenticator makes (the store's methods are closures).
  const counted = <K extends "findTokenByHash" | "touchToken">(key: K): Store[K] => ((...args: Parameters<Store[K]>) => {
    calls.set(key, (calls.get(key) ?? 0) + 1);
    return (real[key] as (...a: Parameters<Store[K]>) => ReturnType<Store[K]>)(...args);
  }) as Store[K];
  const store: Store = { ...real, findTokenByHash: counted("findTokenByHash"), touchToken: counted("touchToken") };
  try {
    const user = await real.createUser({ name: "ada", isAdmin: false });
    const secret = mintSecret("kt_");
    const token = await real.createToken({ userId: user.id, name: "t", secretHash: hashSecret(secret), scopes: null, expiresAt: null });
    await body(store, secret, token.id, calls, path);
  } finally {
    await real.close();
  }
}

async function lastUsedAt(store: Store, tokenId: string, not: string | null): Promise<string | null> {
  for (let i = 0; i < 200; i += 1) {
    const at = (await store.getToken(tokenId))?.lastUsedAt ?? null;
    if (at !== not) return at;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return not;
}

test("refreshing a token's last use does not move the change mark (the caches stay warm)", async () => {
  await withTokenStore(async (store, secret, tokenId) => {
    const auth = createAuthenticator(store, createLoopbackTokens());
    const mark = store.changeMark!();
    assert.ok(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }));
    assert.notEqual(await lastUsedAt(store, tokenId, null), null, "the first use was not recorded");
    assert.equal(store.changeMark!(), mark, "recording the token's use moved the change mark");
  });
});

test("a cached token is refreshed once per interval, not on every request", async () => {
  await withTokenStore(async (store, secret, tokenId, calls) => {
    // Last used long ago: the first request refreshes it; the cached record still says "long ago".
    await store.touchToken(tokenId, "2020-01-01T00:00:00.000Z");
    calls.clear();
    const auth = createAuthenticator(store, createLoopbackTokens());
    for (let i = 0; i < 5; i += 1) assert.ok(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }));
    const at = await lastUsedAt(store, tokenId, "2020-01-01T00:00:00.000Z");
    assert.notEqual(at, "2020-01-01T00:00:00.000Z", "the use was not recorded");
    for (let i = 0; i < 5; i += 1) assert.ok(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }));
    assert.equal(calls.get("touchToken"), 1, "the use was recorded more than once within the interval");
    assert.equal(calls.get("findTokenByHash"), 1, "the token was read from the store more than once");
  });
});

// A guard against a regression (it passes without the change too): the cache must not outlive a revocation.
test("a revoked token is refused at once, though its use was just recorded", async () => {
  await withTokenStore(async (store, secret, tokenId) => {
    const auth = createAuthenticator(store, createLoopbackTokens());
    assert.ok(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }));
    await lastUsedAt(store, tokenId, null);
    assert.equal(await store.revokeToken(tokenId), true);
    assert.equal(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }), null);
  });
});

test("a token revoked by another process (the CLI) is refused at once, its use just recorded here", async () => {
  await withTokenStore(async (store, secret, tokenId, _calls, path) => {
    const auth = createAuthenticator(store, createLoopbackTokens());
    assert.ok(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }));
    await lastUsedAt(store, tokenId, null);
    const cli = await createSqliteStore({ path });
    try {
      assert.equal(await cli.revokeToken(tokenId), true);
    } finally {
      await cli.close();
    }
    assert.equal(await auth.authenticate({ bearer: secret, remoteAddress: "127.0.0.1", route: "mcp" }), null);
  });
});
