/**
 * Seals and opens the `requestState` of input-required rounds with the SDK's HMAC codec. The key
 * is a server setting created once in the store (`mcp.request_state_key`), so every instance
 * sharing a database verifies the state another instance minted (a 2026 client may land anywhere).
 * States expire after ten minutes.
 */
import { randomBytes } from "node:crypto";
import type { Store } from "../store/store.ts";
import type { SealedRound } from "./input-rounds.ts";
import { createRequestStateCodec, type ServerContext } from "./sdk.ts";

export interface StateCodec {
  seal(round: SealedRound): Promise<string>;
  /** The sealed round; throws when the state was changed, has expired, or is not ours. */
  open(state: string, ctx: ServerContext): Promise<SealedRound>;
}

export function createStateCodec(store: Pick<Store, "getOrCreateSetting">, ttlSeconds = 600): StateCodec {
  let codec: Promise<ReturnType<typeof createRequestStateCodec<SealedRound>>> | null = null;
  const get = () => (codec ??= store.getOrCreateSetting("mcp.request_state_key", () => randomBytes(32).toString("base64url"))
    .then((key) => createRequestStateCodec<SealedRound>({ key, ttlSeconds })));
  return {
    seal: async (round) => (await get()).mint(round),
    open: async (state, ctx) => (await get()).verify(state, ctx),
  };
}
