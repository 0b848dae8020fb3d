/**
 * Tool-list changes across instances. Every instance sharing one PostgreSQL database LISTENs on
 * one channel; a save, delete, share or grant change made on any of them is NOTIFYed with the
 * users it may affect, and each instance tells its own clients (2025 sessions and stdio by
 * `notifications/tools/list_changed`, 2026 `subscriptions/listen` streams likewise). On SQLite
 * (one instance per database file) changes stay local. The payload holds user ids only, never
 * tool content; an instance skips its own notifications (it told its clients at once).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";
import { listenPg, type PgNotifyChannel } from "../store/postgres/pg-driver.ts";
import { isPostgresUrl } from "../store/postgres/url.ts";

const CHANNEL = "knot_tools_changed";
/** NOTIFY payloads must stay under 8000 bytes; a longer user list becomes "everyone" (a hint is cheap). */
const MAX_PAYLOAD = 7_000;

export interface ChangeBus {
  /** Tells the other instances (local delivery is the caller's). */
  publish(userIds?: readonly string[]): void;
  /** Waits for the notifications already published (a CLI command exits right after), then leaves. */
  close(): Promise<void>;
}

export async function createChangeBus(database: string, deliver: (userIds?: readonly string[]) => void, logger: Logger): Promise<ChangeBus> {
  if (!isPostgresUrl(database)) return { publish: () => {}, close: async () => {} };
  const origin = randomUUID();
  /** A change published while the connection was down, which the other instances never heard. */
  let unsent = false;
  const channel: PgNotifyChannel = await listenPg(database, CHANNEL, (payload) => {
    try {
      const message = JSON.parse(payload) as { origin?: unknown; users?: unknown };
      if (message.origin === origin) return;
      const users = Array.isArray(message.users) ? message.users.filter((u): u is string => typeof u === "string") : undefined;
      deliver(users);
    } catch {
      logger.warn("ignored a malformed tool-change notification");
    }
  }, (error) => logger.warn("tool-change channel failed; reconnecting", { error: error.message }), {
    // Back after a drop: changes the other instances made meanwhile were not heard, so every local
    // client is told its list may have changed, and theirs are told of ours that were not sent.
    onReconnect: () => {
      deliver();
      if (!unsent) return;
      unsent = false;
      bus.publish(); // to everyone: which users the lost ones named is not kept
    },
  });
  const sending = new Set<Promise<void>>();
  const bus: ChangeBus = {
    publish(userIds) {
      let payload = JSON.stringify({ origin, users: userIds ?? null });
      if (payload.length > MAX_PAYLOAD) payload = JSON.stringify({ origin, users: null });
      const sent = channel.notify(payload).then((delivered) => {
        if (!delivered) unsent = true;
      }, (error: Error) => {
        unsent = true;
        logger.warn("could not publish a tool change", { error: error.message });
      });
      sending.add(sent);
      void sent.finally(() => sending.delete(sent));
    },
    close: async () => {
      await Promise.all(sending);
      await channel.close();
    },
  };
  return bus;
}
