/**
 * The 2026-07-28 side of `/mcp`: the SDK's stateless per-request handler (`createMcpHandler`, a
 * fresh server per request, so any instance can answer any request), one per user. Per user, so a
 * `subscriptions/listen` stream hears `tools/list_changed` only for changes to that user's tools:
 * the SDK's event bus has no notion of who listens.
 */
import type { Logger } from "../log.ts";
import type { ModernHandler } from "./http-handler.ts";
import { toParsedBodyNodeHandler } from "./node-adapter.ts";
import { createMcpHandler, type SdkHttpHandler, type Server } from "./sdk.ts";

export interface ModernHandlers {
  of(userId: string): ModernHandler;
  /** Tells the open subscription streams of these users (all when omitted) that their tool list changed. */
  notify(userIds?: readonly string[]): void;
  close(): Promise<void>;
}

export function createModernHandlers(newServer: () => Server, maxBodyBytes: number, logger: Logger): ModernHandlers {
  const byUser = new Map<string, { sdk: SdkHttpHandler; node: ModernHandler }>();
  const onerror = (error: Error) => logger.debug("mcp 2026 request refused", { error: error.message });
  return {
    of(userId) {
      let entry = byUser.get(userId);
      if (!entry) {
        const sdk = createMcpHandler(() => newServer(), { legacy: "reject", onerror, maxRequestBodySize: maxBodyBytes });
        entry = { sdk, node: toParsedBodyNodeHandler(sdk, onerror) };
        byUser.set(userId, entry);
      }
      return entry.node;
    },
    notify(userIds) {
      const targets = userIds ? userIds.map((id) => byUser.get(id)).filter((e) => e !== undefined) : [...byUser.values()];
      for (const entry of targets) entry.sdk.notify.toolsChanged();
    },
    async close() {
      const all = [...byUser.values()];
      byUser.clear();
      await Promise.allSettled(all.map((e) => e.sdk.close()));
    },
  };
}
