/**
 * Replay detection under concurrency: the same refresh token or code sent several times at once.
 * oidc-provider reads `consumed`, then consumes; concurrent requests all passed the read and each
 * got a token set. Now the store's consumption decides: one request wins, the others are replays
 * (invalid_grant, the grant and its connection revoked). On PostgreSQL, where the store's round
 * trips let the requests interleave (as they do across instances); SQLite's answer in-process
 * before the next request is read.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { sharedPostgres } from "../helpers/postgres.ts";
import { approve, issueTokens, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from "./helpers.ts";

const cluster = sharedPostgres();
let one: TestApp;
let olga: { user: { id: string }; token: string };

before(async () => {
  const database = await (await cluster()).createSchema();
  one = await startApp({ config: { database } });
  olga = await one.userWithToken("olga", { grants: ["knot.mcp"] });
});
after(() => one?.close());

test("the same refresh token or code sent four times at once: one token set at most, and the replay revokes the connection", async () => {
  for (let round = 0; round < 4; round += 1) {
    const { client, tokens, connectionId } = await issueTokens(one.url, olga.token);
    const form = { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id };
    const answers = await Promise.all(Array.from({ length: 4 }, () => tokenRequest(one.url, form)));
    assert.ok(answers.filter((a) => a.status === 200).length <= 1, `round ${round}: ${JSON.stringify(answers.map((a) => a.status))}`);
    assert.ok(answers.some((a) => a.body.error === "invalid_grant"), `round ${round}: one is refused as a replay`);
    const end = Date.now() + 3000;
    while ((await one.app.store.getToken(connectionId))?.revokedAt == null && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    assert.ok((await one.app.store.getToken(connectionId))?.revokedAt, `round ${round}: the connection is revoked`);

    const fresh = (await registerClient(one.url)).body;
    const { verifier, challenge } = pkcePair();
    const { callback, connectionId: codeConnection } = await approve(one.url, olga.token, { client_id: fresh.client_id, code_challenge: challenge });
    const code = { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: fresh.client_id };
    const exchanged = await Promise.all(Array.from({ length: 4 }, () => tokenRequest(one.url, code)));
    assert.ok(exchanged.filter((a) => a.status === 200).length <= 1, `round ${round}, code: ${JSON.stringify(exchanged.map((a) => a.status))}`);
    assert.ok(exchanged.some((a) => a.body.error === "invalid_grant"), `round ${round}, code: one is refused as a replay`);
    while ((await one.app.store.getToken(codeConnection))?.revokedAt == null && Date.now() < end + 3000) await new Promise((r) => setTimeout(r, 50));
    assert.ok((await one.app.store.getToken(codeConnection))?.revokedAt, `round ${round}, code: the connection is revoked`);
  }
});
