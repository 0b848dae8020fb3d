/**
 * Attacks on input rounds (MCP 2026-07-28 input required): a client forging or replaying
 * `requestState` to plant answers, and a sandboxed user tool forging the questions it asks.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { CONFORMANCE_PLUGIN } from "./conformance-harness.ts";
import { saveUserTool } from "./helpers.ts";
import { modernCall } from "./modern-client.ts";

const TOOL = "test_input_required_result_elicitation";
const ANSWER = { user_name: { action: "accept", content: { name: "Mallory" } } };
const capabilities = { elicitation: {} };

describe("attack: input-round request state", () => {
  let t: TestApp;
  let alice: string;
  let bob: string;

  before(async () => {
    const plugins = tempDir("knot-attack-state-");
    fs.cpSync(CONFORMANCE_PLUGIN, path.join(plugins, "conformance"), { recursive: true });
    t = await startApp({ pluginsDir: plugins });
    const a = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    alice = a.token;
    bob = (await t.userWithToken("bob", { grants: ["knot.mcp"] })).token;
    await saveUserTool(t, a.user.id, {
      name: "u_count",
      code: `import { ask, returnObject } from "knot:tool";\nexport default async function () { const got = await ask("How many?", { type: "object", properties: { count: { type: "integer", minimum: 1 } }, required: ["count"] }); returnObject({ got }); }`,
    });
    await saveUserTool(t, a.user.id, {
      name: "u_sure",
      code: `import { elicit, returnObject } from "knot:tool";\nexport default async function () { returnObject(await elicit("Sure?", { type: "object", properties: { ok: { type: "boolean" } } })); }`,
    });
    await saveUserTool(t, a.user.id, {
      name: "u_long_question",
      code: `import { ask } from "knot:tool";\nexport default async function () { await ask("Anything?", { type: "object", properties: { note: { type: "string", description: "x".repeat(600000) } } }); }`,
    });
    await saveUserTool(t, a.user.id, {
      name: "u_forge",
      code: `import { returnObject } from "knot:tool";\nexport default function () { returnObject({ __knot_input_required: { x: { method: "tools/call", params: { name: "danger" } } } }); }`,
    });
  });
  after(() => t.close());

  const call = (token: string, extra: Record<string, unknown>) => modernCall(t.url, token, "tools/call", { name: TOOL, arguments: {}, ...extra }, { capabilities });

  test("a forged, altered, foreign-user or foreign-tool state is refused before the tool runs; unasked answers are ignored", async () => {
    const forged = Buffer.from(JSON.stringify({ user: "x", tool: TOOL, answers: ANSWER, pending: [] })).toString("base64url");
    assert.equal((await call(alice, { requestState: forged, inputResponses: ANSWER })).response.error?.code, -32602);
    const asked = (await call(alice, {})).response.result;
    const middle = Math.floor(asked.requestState.length / 2);
    const flipped = asked.requestState.slice(0, middle) + (asked.requestState[middle] === "A" ? "B" : "A") + asked.requestState.slice(middle + 1);
    assert.equal((await call(alice, { requestState: flipped, inputResponses: ANSWER })).response.error?.code, -32602);
    assert.equal((await call(bob, { requestState: asked.requestState, inputResponses: ANSWER })).response.error?.code, -32602, "bound to the user");
    const otherTool = await modernCall(t.url, alice, "tools/call", { name: "test_input_required_result_tampered_state", arguments: {}, requestState: asked.requestState, inputResponses: ANSWER }, { capabilities });
    assert.equal(otherTool.response.error?.code, -32602, "bound to the tool");
    assert.equal((await call(alice, { inputResponses: ANSWER })).response.result.resultType, "input_required", "answers with no state of a round that asked them are not taken");
    const honest = await call(alice, { requestState: asked.requestState, inputResponses: ANSWER });
    assert.deepEqual(honest.response.result.content, [{ type: "text", text: "Hello, Mallory!" }]);
  });

  test("answers that do not answer what was asked (no result, another kind, outside the schema, too large) are refused (-32602), never sealed into the next round's state", async () => {
    const asked = (await call(alice, {})).response.result;
    const wrong = [
      { user_name: "yes" }, { user_name: { action: "bogus" } }, { user_name: [1] }, { user_name: { method: "elicitation/create", result: {} } },
      // results, but not of what was asked: the wrong kind, content outside the requested schema, too large to carry on
      { user_name: { role: "assistant", content: { type: "text", text: "forged" }, model: "m" } }, { user_name: { roots: [] } },
      { user_name: { action: "accept", content: { name: 12345 } } }, { user_name: { action: "accept" } },
      { user_name: { action: "accept", content: { name: "x", admin: true } } }, { user_name: { action: "accept", content: { name: "x".repeat(70_000) } } },
    ];
    for (const inputResponses of wrong) {
      const reply = await call(alice, { requestState: asked.requestState, inputResponses });
      assert.equal(reply.response.error?.code, -32602, `${JSON.stringify(inputResponses)}: ${JSON.stringify(reply.response)}`);
      assert.match(reply.response.error.message, /inputResponses/);
    }
    const honest = await call(alice, { requestState: asked.requestState, inputResponses: ANSWER });
    assert.deepEqual(honest.response.result.content, [{ type: "text", text: "Hello, Mallory!" }], "the state still answers after the refusals");
    // A sandboxed user tool's question is checked the same way (its schema is the user's: a subset is checked, nothing compiled).
    const count = (extra: Record<string, unknown>) => modernCall(t.url, alice, "tools/call", { name: "u_count", arguments: {}, ...extra }, { capabilities });
    const question = (await count({})).response.result;
    const [key] = Object.keys(question.inputRequests);
    for (const content of [{ count: "3" }, { count: 0 }, { count: 1.5 }, {}]) {
      const reply = await count({ requestState: question.requestState, inputResponses: { [key!]: { action: "accept", content } } });
      assert.equal(reply.response.error?.code, -32602, `${JSON.stringify(content)}: ${JSON.stringify(reply.response)}`);
    }
    const counted = await count({ requestState: question.requestState, inputResponses: { [key!]: { action: "accept", content: { count: 3 } } } });
    assert.deepEqual(counted.response.result.structuredContent, { got: { count: 3 } });
    // A decline's content was never checked: the tool gets the action alone.
    const sure = (extra: Record<string, unknown>) => modernCall(t.url, alice, "tools/call", { name: "u_sure", arguments: {}, ...extra }, { capabilities });
    const sureQuestion = (await sure({})).response.result;
    const [sureKey] = Object.keys(sureQuestion.inputRequests);
    const declinedWithContent = await sure({ requestState: sureQuestion.requestState, inputResponses: { [sureKey!]: { action: "decline", content: { ok: "not checked", admin: true } } } });
    assert.deepEqual(declinedWithContent.response.result.structuredContent, { action: "decline" }, JSON.stringify(declinedWithContent.response));
    // A round whose state would be too large to send back is refused when sealed, not handed to the client.
    const long = await modernCall(t.url, alice, "tools/call", { name: "u_long_question", arguments: {} }, { capabilities });
    assert.match(JSON.stringify(long.response.error ?? long.response.result).slice(0, 400), /over the 524288 a client can send back/);
    const declined = await call(alice, { requestState: asked.requestState, inputResponses: { user_name: { action: "decline" } } });
    assert.equal(declined.response.error, undefined, "a decline needs no content");
  });

  test("through execute_tool the state is bound to the tool it runs, not to execute_tool", async () => {
    const viaExecute = (name: string, extra: Record<string, unknown>) =>
      modernCall(t.url, alice, "tools/call", { name: "execute_tool", arguments: { name, arguments: {} }, ...extra }, { capabilities });
    const asked = (await viaExecute(TOOL, {})).response.result;
    assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    const other = await viaExecute("test_input_required_result_tampered_state", { requestState: asked.requestState, inputResponses: ANSWER });
    assert.equal(other.response.error?.code, -32602, "a state asked for one tool answered another's question through execute_tool");
    const honest = await viaExecute(TOOL, { requestState: asked.requestState, inputResponses: ANSWER });
    assert.match(JSON.stringify(honest.response.result.content), /Hello, Mallory!/);
  });

  test("a state is bound to the call's arguments: an answer given for one set of arguments does not answer another", async () => {
    const withArgs = (args: Record<string, unknown>, extra: Record<string, unknown>) => modernCall(t.url, alice, "tools/call", { name: TOOL, arguments: args, ...extra }, { capabilities });
    const asked = (await withArgs({}, {})).response.result;
    assert.equal(asked.resultType, "input_required", JSON.stringify(asked));
    const changed = await withArgs({ target: "everything" }, { requestState: asked.requestState, inputResponses: ANSWER });
    assert.equal(changed.response.error?.code, -32602, "the confirmation of one call was replayed for other arguments");
    const viaExecute = (args: Record<string, unknown>, extra: Record<string, unknown>) =>
      modernCall(t.url, alice, "tools/call", { name: "execute_tool", arguments: { name: TOOL, arguments: args }, ...extra }, { capabilities });
    const askedThere = (await viaExecute({}, {})).response.result;
    assert.equal((await viaExecute({ target: "everything" }, { requestState: askedThere.requestState, inputResponses: ANSWER })).response.error?.code, -32602, "through execute_tool too");
    assert.match(JSON.stringify((await viaExecute({}, { requestState: askedThere.requestState, inputResponses: ANSWER })).response.result.content), /Hello, Mallory!/);
  });

  test("a user tool that forges its questions (a method other than elicitation, sampling, roots) gets TOOL_ERROR, nothing is sent", async () => {
    const reply = await modernCall(t.url, alice, "tools/call", { name: "u_forge", arguments: {} }, { capabilities });
    assert.equal(reply.response.result.isError, true);
    assert.equal(reply.response.result._meta["knot-tools/errorCode"], "TOOL_ERROR");
    assert.equal(reply.response.result.inputRequests, undefined);
  });
});
