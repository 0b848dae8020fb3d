import { KnotError } from "../errors.ts";
import { positiveIntegerParam } from "../http/query-numbers.ts";
import { sendJson } from "../http/respond.ts";
import { mustScopeUserTools } from "../http/routes/tool-routes.ts";
import type { Route } from "../http/router.ts";
import { effectiveIsAdmin } from "../identity/principal.ts";
import type { Services } from "../services.ts";

const MAX_DELIVERIES = 500;

/** `GET /api/sinks/<id>/deliveries`: a sink's outbox rows, newest first, for its owner and admins. */
export function sinkRoutes(services: Services): Route[] {
  return [{
    method: "GET", path: "/api/sinks/:id/deliveries", access: "api",
    async handle(ctx) {
      mustScopeUserTools(ctx.principal);
      const sink = await services.store.getUserTool(ctx.params.id ?? "");
      const allowed = sink !== null && sink.kind === "sink" && (sink.ownerId === ctx.principal.user.id || effectiveIsAdmin(ctx.principal));
      if (!allowed) throw new KnotError("NOT_FOUND", `no sink with id "${ctx.params.id}" is visible to you`);
      const limit = positiveIntegerParam(ctx.url.searchParams, "limit", MAX_DELIVERIES) ?? 100;
      const rows = await services.store.listDeliveries(sink.id, limit);
      sendJson(ctx.res, 200, {
        sink: { id: sink.id, name: sink.name, events: sink.events ?? [] },
        deliveries: rows.map((d) => ({ eventId: d.eventId, type: d.type, status: d.status, attempts: d.attempts, lastError: d.lastError, nextAttemptAt: d.nextAttemptAt })),
      });
    },
  }];
}
