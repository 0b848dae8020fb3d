/**
 * The config declaration (src/config.ts CONFIG_KEYS) is the one source of the parser, the defaults
 * and README's key table: the table must be what the declaration writes, and every declared key
 * must be read from the file the way the table says.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { CONFIG_KEYS, configFromToml, DEFAULT_CONFIG } from "../src/config.ts";
import { keyTable, TABLE_END, TABLE_START } from "../src/config/key-table.ts";
import { isKey, type Key, type KeyTree } from "../src/config/keys.ts";
import type { KnotError } from "../src/errors.ts";

/** Every declared key with the path of its field in the config object. */
function leaves(tree: KeyTree, prefix: string[] = []): { field: string[]; node: Key<unknown> }[] {
  return Object.entries(tree).flatMap(([name, node]) => (isKey(node) ? [{ field: [...prefix, name], node }] : leaves(node, [...prefix, name])));
}

const fieldOf = (config: unknown, field: string[]): unknown => field.reduce((value, name) => (value as Record<string, unknown> | undefined)?.[name], config);

function docSetting(toml: string, value: unknown): Record<string, unknown> {
  const [section, name] = toml.split(".") as [string, string];
  return { [section]: { [name]: value } };
}

describe("config: one declaration", () => {
  it("README.md's key table is the one the declaration writes (run `npm run docs:config` after changing a key)", () => {
    const readme = fs.readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const start = readme.indexOf(TABLE_START);
    const end = readme.indexOf(TABLE_END);
    assert.ok(start >= 0 && end > start, "README.md holds the generated table");
    assert.equal(readme.slice(start, end + TABLE_END.length), keyTable(CONFIG_KEYS));
    for (const { node } of leaves(CONFIG_KEYS)) assert.ok(readme.includes(node.toml.includes(".") ? `\`[${node.toml.split(".")[0]}]\` ${node.toml.split(".")[1]} |` : `\`[${node.toml}.<name>]\``), node.toml);
  });

  it("the defaults are the declared ones, and a file that sets nothing gets them", () => {
    const empty = configFromToml({}, "/srv");
    assert.deepEqual(empty, DEFAULT_CONFIG);
    for (const { field, node } of leaves(CONFIG_KEYS)) {
      if (node.default === undefined) assert.equal(fieldOf(DEFAULT_CONFIG, field), undefined, `${node.toml} is left out`);
      else assert.deepEqual(fieldOf(DEFAULT_CONFIG, field), node.default, node.toml);
    }
  });

  it("every number and boolean key lands in its field; every key refuses a value of the wrong type, naming it", () => {
    const all = leaves(CONFIG_KEYS).filter(({ node }) => node.toml.includes("."));
    assert.ok(all.length >= 40);
    for (const { field, node } of all) {
      // One more than the default, so keys checked together (headers ≤ request timeout) still agree.
      const number = typeof node.default === "number" ? node.default + 1 : 7;
      if (node.type === "number") assert.equal(fieldOf(configFromToml(docSetting(node.toml, number), "/srv"), field), number, node.toml);
      if (node.type === "boolean") assert.equal(fieldOf(configFromToml(docSetting(node.toml, true), "/srv"), field), true, node.toml);
      const wrong = node.type === "string" ? 5 : "five";
      assert.throws(() => configFromToml(docSetting(node.toml, wrong), "/srv"), (e: KnotError) => e.code === "CONFIG_INVALID" && e.detail.where === node.toml, node.toml);
    }
  });

  it("each declared section refuses a key it does not declare", () => {
    const sections = new Set(leaves(CONFIG_KEYS).map(({ node }) => node.toml.split(".")[0]!).filter((s) => s !== "plugins"));
    assert.ok(sections.size >= 8);
    for (const section of sections) {
      assert.throws(() => configFromToml({ [section]: { nope: 1 } }, "/srv"), (e: KnotError) => e.code === "CONFIG_INVALID" && e.detail.where === `${section}.nope` && e.message === `config: unknown key ${section}.nope`);
    }
  });
});
