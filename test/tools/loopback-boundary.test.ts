/**
 * Boundary: what a loopback token can reach. It is minted per run for the requesting user and is
 * meant for `/plugins/<name>/<fn>` and the read-only `/api` routes guest libraries need, from the
 * loopback address only. Threat: the token leaks out of the sandbox worker (a worker bug, a log)
 * and is replayed to manage the server — mint tokens, change grants, read the audit log, open an
 * MCP session or a web session. The worst case is tried: a live token of an *admin*'s run.
 * Every route of the real route table is probed, so a route added later is covered too.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createLoopbackTokens } from "../../src/auth/loopback-tokens.ts";
import { auditRoutes } from "../../src/http/routes/audit-routes.ts";
import { coreRoutes } from "../../src/http/routes/core-routes.ts";
import { navigationRoutes } from "../../src/http/routes/navigation-routes.ts";
import { pluginRoutes } from "../../src/http/routes/plugin-routes.ts";
import { toolRoutes } from "../../src/http/routes/tool-routes.ts";
import { visibilityRoutes } from "../../src/http/routes/visibility-routes.ts";
import type { Route } from "../../src/http/router.ts";
import type { Principal } from "../../src/identity/principal.ts";
import { metricsRoutes } from "../../src/metrics/metrics-route.ts";
import { webRoutes } from "../../src/web/web-routes.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

/** The read-only routes a loopback token may use besides /plugins; widening it must be a decision. */
const LOOPBACK_API_READ = ["GET /api/me"];

describe("a leaked loopback token cannot manage the server", () => {
  let t: TestApp;
  let routes: Route[];
  let live: { token: string; revoke(): void };
  let adminPrincipal: Principal;

  before(async () => {
    t = await startApp();
    const admin = await t.user("root", { admin: true });
    adminPrincipal = (await t.app.auth.principalFor(admin.id, "token"))!;
    live = t.app.loopbackTokens.mint(adminPrincipal, "boundary-run", 60_000);
    const { app } = t;
    routes = [
      ...visibilityRoutes(app, app.mcp), ...auditRoutes(app), ...coreRoutes(app), ...navigationRoutes(app), ...pluginRoutes(app),
      ...toolRoutes(app), ...webRoutes(app), ...metricsRoutes(app.metrics),
    ];
  });
  after(async () => {
    live.revoke();
    await t.close();
  });

  const concrete = (path: string) => path.replace(/:([a-z]+)/gi, "x1");
  const methodsOf = (route: Route) => (typeof route.method === "string" ? [route.method] : [...route.method]);

  it("only GET /api/me is read-only API for loopback tokens, besides /plugins", () => {
    const readOnly = routes.filter((r) => r.access === "api-read").flatMap((r) => methodsOf(r).map((m) => `${m} ${r.path}`));
    assert.deepEqual(readOnly.sort(), LOOPBACK_API_READ);
    assert.ok(routes.filter((r) => r.access === "api").length >= 25, "the whole API is probed");
  });

  it("every management route refuses it with 401 before its handler runs, whatever the method", async () => {
    const probed: string[] = [];
    for (const route of routes.filter((r) => r.access === "api")) {
      for (const method of methodsOf(route)) {
        const url = `${t.url}${concrete(route.path)}`;
        const res = await request(url, live.token, method === "GET" || method === "DELETE" ? { method } : { method, body: JSON.stringify({ name: "sneaky", code: "", subject: "user:x", permission: "plugin.a.b", token: live.token }) });
        assert.equal(res.status, 401, `${method} ${route.path} answered ${res.status}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, "UNAUTHENTICATED");
        probed.push(`${method} ${route.path}`);
      }
    }
    for (const must of ["POST /api/tokens", "POST /api/grants", "PATCH /api/users/:id", "GET /api/audit", "POST /api/tools", "POST /api/runs", "GET /metrics"]) {
      assert.ok(probed.includes(must), `${must} was probed`);
    }
    assert.equal((await t.app.store.listTokens()).length, 0, "no token was minted by any probe");
  });

  it("it is usable where it is meant to be: /plugins and GET /api/me", async () => {
    assert.equal((await request(`${t.url}/api/me`, live.token)).body.name, "root");
    const plugin = await request(`${t.url}/plugins/demo/lib_exports`, live.token);
    assert.equal(plugin.status, 200);
  });

  it("it opens neither an MCP session nor a web session, and does not work as a cookie", async () => {
    const mcp = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${live.token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
    });
    assert.equal(mcp.status, 401);
    const signIn = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token: live.token }) });
    assert.equal(signIn.status, 401);
    assert.equal(signIn.headers.get("set-cookie"), null);
    const asCookie = await request(`${t.url}/api/me`, null, { headers: { cookie: `knot_session=${live.token}` } });
    assert.equal(asCookie.status, 401);
    assert.equal((await request(`${t.url}/plugins/demo/lib_exports`, null, { headers: { cookie: `knot_session=${live.token}`, "x-knot-csrf": "1" } })).status, 401);
  });

  it("it dies at its time-to-live even if the run never revokes it, and at revoke at once", () => {
    let now = 1_000;
    const tokens = createLoopbackTokens(() => now);
    const minted = tokens.mint(adminPrincipal, "run", 500);
    assert.equal(tokens.lookup(minted.token)?.principal.via, "loopback");
    now += 499;
    assert.ok(tokens.lookup(minted.token));
    now += 1;
    assert.equal(tokens.lookup(minted.token), null, "expired");
    const second = tokens.mint(adminPrincipal, "run2", 500);
    second.revoke();
    assert.equal(tokens.lookup(second.token), null, "revoked");
    assert.equal(tokens.lookup(second.token.replace(/^ktl_/, "kt_")), null, "the prefix is part of the secret");
    assert.equal(tokens.size, 0, "expired and revoked entries are gone");
  });

  it("its lifetime restarts when the run is dispatched, but a revoked or ended token never comes back", () => {
    let now = 1_000;
    const tokens = createLoopbackTokens(() => now);
    const queued = tokens.mint(adminPrincipal, "run", 500);
    now += 800; // waited in the queue past its lifetime (a mint in between sweeps it away)
    tokens.mint(adminPrincipal, "other", 500).revoke();
    queued.restartClock(); // dispatched
    assert.ok(tokens.lookup(queued.token));
    now += 499;
    assert.ok(tokens.lookup(queued.token));
    now += 1;
    assert.equal(tokens.lookup(queued.token), null, "expired again, counted from dispatch");
    queued.revoke();
    queued.restartClock(); // a late re-dispatch after the run ended
    assert.equal(tokens.lookup(queued.token), null, "revoked stays revoked");
  });

  it("a refresh under way holds requests until it settles; a principal gone revokes the token", async () => {
    const tokens = createLoopbackTokens();
    const minted = tokens.mint(adminPrincipal, "run", 60_000);
    let settle!: (p: Principal | null) => void;
    minted.refresh(new Promise((resolve) => (settle = resolve)));
    const asked = tokens.principalOf(minted.token);
    settle({ ...adminPrincipal, granted: ["fresh"] });
    assert.deepEqual((await asked)?.granted, ["fresh"]);
    assert.equal((await asked)?.via, "loopback");
    minted.refresh(Promise.resolve(null));
    assert.equal(await tokens.principalOf(minted.token), null);
    assert.equal(tokens.lookup(minted.token), null, "gone for the synchronous check too");
  });
});
