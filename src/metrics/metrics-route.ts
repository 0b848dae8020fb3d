import { sendText } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import type { Metrics } from "./metrics.ts";

/**
 * `GET /metrics`: the Prometheus text format, for admins only (a scrape job presents an admin's
 * bearer token: `authorization: { credentials_file: … }` in its scrape config).
 */
export function metricsRoutes(metrics: Metrics): Route[] {
  return [{
    method: "GET", path: "/metrics", access: "api", admin: true,
    async handle(ctx) {
      sendText(ctx.res, 200, await metrics.render(), metrics.contentType);
    },
  }];
}
