/**
 * Client ID Metadata Documents are fetched by oidc-provider with strict limits: https only, a
 * 2.5 s timeout, a 5 KiB body cap, no redirects followed, and connections to private and other
 * special-use addresses dropped. Tests cannot serve https from a public address, so — only when
 * `[oauth] loopback_client_documents = true` — a client id `https://127.0.0.1:PORT/…` is fetched
 * over plain http from the loopback instead. Every other URL keeps the protected fetch.
 */
export function createClientDocumentFetch(): typeof fetch {
  return (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.protocol !== "https:" || target.hostname !== "127.0.0.1") return fetch(input, init);
    target.protocol = "http:";
    const { dispatcher: _ssrfGuard, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
    return fetch(target, rest);
  };
}
