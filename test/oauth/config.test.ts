/** The [oauth] config table: public_url must be a bare origin; loopback_client_documents is a boolean. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { configFromToml } from "../../src/config.ts";

test("[oauth] public_url is kept as an origin; paths, queries and other schemes are refused", () => {
  assert.equal(configFromToml({}, "/srv").oauth.publicUrl, null);
  assert.equal(configFromToml({ oauth: { public_url: "https://knot.example.com/" } }, "/srv").oauth.publicUrl, "https://knot.example.com");
  for (const bad of ["https://knot.example.com/base", "ftp://knot.example.com", "https://u:p@knot.example.com", "https://knot.example.com/?x=1", "not a url"]) {
    assert.throws(() => configFromToml({ oauth: { public_url: bad } }, "/srv"), { code: "CONFIG_INVALID" }, bad);
  }
  assert.equal(configFromToml({ oauth: { loopback_client_documents: true } }, "/srv").oauth.loopbackClientDocuments, true);
  assert.throws(() => configFromToml({ oauth: { loopback_client_documents: "yes" } }, "/srv"), { code: "CONFIG_INVALID" });
  assert.throws(() => configFromToml({ oauth: { issuer: "x" } }, "/srv"), { code: "CONFIG_INVALID" });
});
