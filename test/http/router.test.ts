/**
 * The route table answers as one ordered scan would: the first route whose path and method
 * match wins (static paths are looked up directly, but a patterned route listed earlier still
 * wins), a path that matches only with other methods lists them, and `*` takes any method.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRouter, type Route } from "../../src/http/router.ts";

const route = (method: Route["method"], path: string, name: string): Route => ({ method, path, access: "public", handle: () => void name });

test("first match in table order, for static and patterned paths alike", () => {
  const routes = [
    route("GET", "/api/tools/:name", "by-name"),
    route("GET", "/api/tools/new", "new"),
    route("POST", "/api/tools/new", "create"),
    route("GET", "/api/tools", "list"),
    route("OPTIONS", "/mcp", "preflight"),
    route("*", "/mcp", "mcp"),
  ];
  const router = createRouter(routes);
  const pick = (method: string, path: string) => {
    const found = router.match(method, path);
    return found && "route" in found ? routes.indexOf(found.route) : found;
  };
  assert.equal(pick("GET", "/api/tools/new"), 0, "the patterned route listed first wins over the static one");
  assert.equal(pick("POST", "/api/tools/new"), 2);
  assert.equal(pick("GET", "/api/tools"), 3);
  assert.equal(pick("GET", "/api/tools/some%20tool"), 0);
  assert.deepEqual(router.match("GET", "/api/tools/x")?.valueOf(), { route: routes[0], params: { name: "x" } });
  assert.deepEqual(pick("DELETE", "/api/tools/new"), { allowed: ["GET", "GET", "POST"] });
  assert.deepEqual(pick("DELETE", "/api/tools"), { allowed: ["GET"] });
  assert.equal(pick("GET", "/nowhere"), null);
  assert.equal(pick("OPTIONS", "/mcp"), 4, "the preflight route is listed before the any-method one");
  for (const method of ["GET", "POST", "DELETE", "PUT", "PATCH"]) assert.equal(pick(method, "/mcp"), 5, method);
});
