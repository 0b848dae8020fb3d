import { KnotError } from "../../errors.ts";
import type { Services } from "../../services.ts";
import type { AuditQuery } from "../../store/store.ts";
import { positiveIntegerParam } from "../query-numbers.ts";
import { sendJson } from "../respond.ts";
import type { Route } from "../router.ts";

/**
 * `GET /api/audit` (admins): newest first, filtered by `user` (a name or id), `tool`, `outcome`,
 * `since` (inclusive) and `until` (exclusive) ISO times; paged with `before` (a seq) and `limit`.
 * The answer's `next` is the `before` of the following page, or null on the last one.
 */
export function auditRoutes(services: Services): Route[] {
  return [{
    method: "GET", path: "/api/audit", access: "api", admin: true,
    async handle(ctx) {
      const q = ctx.url.searchParams;
      const query: Record<string, unknown> = {};
      const user = q.get("user");
      if (user) query.userId = (await services.store.getUserByName(user))?.id ?? user;
      for (const key of ["tool", "outcome"] as const) if (q.get(key)) query[key] = q.get(key);
      for (const key of ["since", "until"] as const) {
        const value = q.get(key);
        if (value === null) continue;
        const time = Date.parse(value);
        if (Number.isNaN(time)) throw new KnotError("BAD_REQUEST", `${key} must be an ISO date or time, got "${value}"`, { where: key });
        query[key] = new Date(time).toISOString();
      }
      for (const key of ["before", "limit"] as const) {
        const n = positiveIntegerParam(q, key);
        if (n !== null) query[key] = n;
      }
      const entries = await services.store.queryAudit(query as AuditQuery);
      const limit = (query.limit as number | undefined) ?? 100;
      const last = entries.at(-1);
      sendJson(ctx.res, 200, { entries, next: entries.length >= Math.min(limit, 1000) && last ? last.seq : null });
    },
  }];
}
