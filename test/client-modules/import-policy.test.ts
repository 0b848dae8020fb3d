import assert from "node:assert/strict";
import { test } from "node:test";
import { clientModuleImportPolicy, KNOT_MODULES, userToolImportPolicy } from "../../client-modules/index.ts";

// metrics declares client modules; the "reports" plugin declares none (or is not installed).
const userPolicy = userToolImportPolicy({
  clientModuleSpecifiers: new Set(["plugin:metrics", "plugin:metrics/client", "plugin:metrics/format"]),
  libNames: new Set(["dates"]),
});

test("KNOT_MODULES are the three knot modules, frozen", () => {
  assert.deepEqual(KNOT_MODULES, ["knot:tool", "knot:identity", "knot:plugin"]);
  assert.equal(Object.isFrozen(KNOT_MODULES), true);
});

test("user tools may import knot modules, declared client modules and shared lib scripts", () => {
  for (const specifier of [...KNOT_MODULES, "plugin:metrics", "plugin:metrics/client", "plugin:metrics/format", "lib:dates"]) {
    assert.equal(userPolicy(specifier), true, specifier);
  }
});

test("user tools are refused everything else, each with a reason an author can act on", () => {
  const refusals: [string, RegExp][] = [
    ["fs", /^fs is not available in user tools: Node APIs/],
    ["node:fs", /^node:fs is not available in user tools: Node APIs/],
    ["node:child_process", /Node APIs/],
    ["http://127.0.0.1:8080/evil.js", /never loaded from a URL/],
    ["https://cdn.example/x.mjs", /never loaded from a URL/],
    ["data:text/javascript,export default 1", /never loaded from a URL/],
    ["file:///etc/passwd", /never loaded from a URL/],
    ["./helpers.js", /no files to import/],
    ["../secrets.js", /no files to import/],
    ["/etc/passwd", /no files to import/],
    ["lodash", /packages are not installed/],
    ["knot:fs", /not a knot module/],
    ["plugin:reports", /^plugin:reports exports no client modules/],
    ["plugin:reports/calc", /^plugin:reports exports no client modules/],
    ["plugin:metrics/calc", /libs and main module are never importable from user tools/],
    ["plugin:metrics/client/x", /not a client module of plugin metrics/],
    ["lib:unknown", /no user script of kind lib named "unknown"/],
    ["lib:", /not a library you can use/],
  ];
  for (const [specifier, reason] of refusals) {
    const verdict = userPolicy(specifier);
    assert.notEqual(verdict, true, specifier);
    assert.match(String(verdict), reason, specifier);
  }
});

test("with no client modules and no libs, only knot modules remain", () => {
  const bare = userToolImportPolicy({ clientModuleSpecifiers: new Set(), libNames: new Set() });
  assert.equal(bare("knot:plugin"), true);
  assert.match(String(bare("plugin:metrics")), /exports no client modules/);
  assert.match(String(bare("lib:dates")), /not a library you can use/);
});

test("a client module may import knot modules and its siblings by full name only", () => {
  const policy = clientModuleImportPolicy("metrics", ["client", "format"], "client");
  assert.equal(policy("knot:plugin"), true);
  assert.equal(policy("plugin:metrics/format"), true);
  const refusals: [string, RegExp][] = [
    ["plugin:metrics", /by full name \(plugin:metrics\/<stem>\)/],
    ["plugin:metrics/client", /cannot import itself/],
    ["plugin:metrics/calc", /not one of this plugin's client modules \(declared: client, format\)/],
    ["plugin:reports/client", /self-contained: plugin:reports\/client belongs to plugin reports/],
    ["plugin:reports", /belongs to plugin reports/],
    ["lib:dates", /self-contained: lib:dates is a user's script/],
    ["node:fs", /not available in client modules/],
    ["./format.js", /no files to import/],
  ];
  for (const [specifier, reason] of refusals) {
    assert.match(String(policy(specifier)), reason, specifier);
  }
});
